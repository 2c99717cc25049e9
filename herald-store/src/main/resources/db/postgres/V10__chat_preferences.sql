-- Herald's PostgreSQL schema, version 10: what a chat chose for itself with a command (/voice, ...), one row per lane
-- and name; a lane without a row uses the configured default. A new table only, so a node of the previous version
-- keeps working on this schema.
CREATE TABLE chat_preferences (
    session_key TEXT COLLATE "C" NOT NULL,
    name        TEXT COLLATE "C" NOT NULL,
    value       TEXT NOT NULL,
    set_at      BIGINT NOT NULL,
    PRIMARY KEY (session_key, name)
);
