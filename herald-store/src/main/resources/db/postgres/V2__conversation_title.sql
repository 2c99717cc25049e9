-- Herald's PostgreSQL schema, version 2 (SQLite's version 6): what a web chat user sets on a conversation.
-- A title they chose (rename) and when they deleted it from their list (hidden; the transcript is kept).
ALTER TABLE sessions ADD COLUMN title TEXT;
ALTER TABLE sessions ADD COLUMN hidden_at BIGINT;
