-- Herald's SQLite schema, version 10: nodes, and who owns a session and a turn.
-- One row per gateway process that registered on this store. Times are the database's clock (on SQLite the one
-- host's clock), in epoch microseconds; a node's lease runs out at expires_at unless it beats again.
CREATE TABLE nodes (
    node_id      TEXT    NOT NULL PRIMARY KEY,
    state        TEXT    NOT NULL CHECK (state IN ('running', 'draining', 'gone')),
    host         TEXT    NOT NULL,
    pid          INTEGER NOT NULL,
    process_key  TEXT,
    started_at   INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    successor_of TEXT,
    ended_at     INTEGER
) WITHOUT ROWID;
CREATE INDEX nodes_live ON nodes (expires_at) WHERE state <> 'gone';
-- The node holding a session's lease (it runs the session's turns while it lives), or NULL.
ALTER TABLE sessions ADD COLUMN owner_node TEXT;
CREATE INDEX sessions_by_owner ON sessions (owner_node) WHERE owner_node IS NOT NULL;
-- The node that received a waiting turn, then the node that runs (and delivers) it; NULL for older rows.
ALTER TABLE turns ADD COLUMN owner_node TEXT;
-- Connections that must be single (Telegram getUpdates, Discord's gateway, Slack Socket Mode, Weixin getupdates): the
-- node that holds one. It counts while that node is running; a draining or gone node's is free for another node.
CREATE TABLE platform_leases (
    platform TEXT    NOT NULL PRIMARY KEY,
    node_id  TEXT    NOT NULL,
    taken_at INTEGER NOT NULL
) WITHOUT ROWID;
-- Platforms' own transport state (a poll cursor, Weixin's per-chat context tokens), so every node reads the same.
CREATE TABLE platform_state (
    platform   TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (platform, name)
) WITHOUT ROWID;
