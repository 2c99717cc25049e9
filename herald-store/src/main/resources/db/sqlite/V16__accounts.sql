-- Herald's SQLite schema, version 16: web accounts (a name, a role, an Argon2id password hash, disabled since when, and
-- the session epoch every session token names) and their API keys (only the SHA-256 of a key is kept). New tables
-- only, so a node of the previous version keeps working on this schema.
CREATE TABLE web_users (
    name          TEXT PRIMARY KEY,
    role          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    disabled_at   INTEGER,
    created_at    INTEGER NOT NULL,
    session_epoch INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    owner        TEXT NOT NULL,
    label        TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    revoked_at   INTEGER,
    last_used_at INTEGER,
    uses         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX api_keys_owner ON api_keys (owner);
