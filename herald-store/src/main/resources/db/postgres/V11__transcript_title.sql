-- Herald's PostgreSQL schema, version 11 (SQLite's version 15): the title a conversation had while it was its lane's
-- current one, stored with its transcript when the lane leaves it (/new, /resume, a suspension), so that /sessions lists
-- it by name and /resume gives the lane its title back. A nullable column only, so a node of the previous version keeps
-- working on this schema.
ALTER TABLE transcript_sessions ADD COLUMN title TEXT;
