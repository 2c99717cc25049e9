-- Herald's SQLite schema, version 6: what a web chat user sets on a conversation. A title they chose
-- (rename) and when they deleted it from their list (hidden; the transcript is kept). No continuity write
-- touches these columns, so a reset or suspension keeps them.
ALTER TABLE sessions ADD COLUMN title TEXT;
ALTER TABLE sessions ADD COLUMN hidden_at INTEGER;
