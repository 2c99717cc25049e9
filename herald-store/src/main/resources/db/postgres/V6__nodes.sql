-- Herald's PostgreSQL schema, version 6: nodes, and who owns a session and a turn.
-- One row per gateway process that registered on this database. Times are the database's clock (now()), in epoch
-- microseconds; a node's lease runs out at expires_at unless it beats again.
CREATE TABLE nodes (
    node_id      TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    state        TEXT   NOT NULL CHECK (state IN ('running', 'draining', 'gone')),
    host         TEXT   NOT NULL,
    pid          BIGINT NOT NULL,
    process_key  TEXT,
    started_at   BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    successor_of TEXT,
    ended_at     BIGINT
);
CREATE INDEX nodes_live ON nodes (expires_at) WHERE state <> 'gone';
-- The node holding a session's lease (it runs the session's turns while it lives), or NULL.
ALTER TABLE sessions ADD COLUMN owner_node TEXT COLLATE "C";
CREATE INDEX sessions_by_owner ON sessions (owner_node) WHERE owner_node IS NOT NULL;
-- The node that received a waiting turn, then the node that runs (and delivers) it; NULL for older rows.
ALTER TABLE turns ADD COLUMN owner_node TEXT COLLATE "C";
-- Connections that must be single (Telegram getUpdates, Discord's gateway, Slack Socket Mode, Weixin getupdates): the
-- node that holds one. It counts while that node is running; a draining or gone node's is free for another node.
CREATE TABLE platform_leases (
    platform TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    node_id  TEXT   NOT NULL,
    taken_at BIGINT NOT NULL
);
-- Platforms' own transport state (a poll cursor, Weixin's per-chat context tokens), so every node reads the same.
CREATE TABLE platform_state (
    platform   TEXT COLLATE "C" NOT NULL,
    name       TEXT COLLATE "C" NOT NULL,
    value      TEXT   NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (platform, name)
);
