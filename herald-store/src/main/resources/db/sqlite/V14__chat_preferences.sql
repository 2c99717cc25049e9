-- Herald's SQLite schema, version 14: what a chat chose for itself with a command (/voice, ...), one row per lane and
-- name; a lane without a row uses the configured default. A new table only, so a node of the previous version keeps
-- working on this schema.
CREATE TABLE chat_preferences (
    session_key TEXT NOT NULL,
    name        TEXT NOT NULL,
    value       TEXT NOT NULL,
    set_at      INTEGER NOT NULL,
    PRIMARY KEY (session_key, name)
);
