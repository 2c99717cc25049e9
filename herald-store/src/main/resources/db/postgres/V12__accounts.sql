-- Herald's PostgreSQL schema, version 12: web accounts (a name, a role, an Argon2id password hash, disabled since when,
-- and the session epoch every session token names) and their API keys (only the SHA-256 of a key is kept). New tables
-- only, so a node of the previous version keeps working on this schema.
CREATE TABLE web_users (
    name          TEXT COLLATE "C" PRIMARY KEY,
    role          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    disabled_at   BIGINT,
    created_at    BIGINT NOT NULL,
    session_epoch BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE api_keys (
    id           TEXT COLLATE "C" PRIMARY KEY,
    owner        TEXT COLLATE "C" NOT NULL,
    label        TEXT NOT NULL,
    key_hash     TEXT COLLATE "C" NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    revoked_at   BIGINT,
    last_used_at BIGINT,
    uses         BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX api_keys_owner ON api_keys (owner);
