-- Herald's PostgreSQL schema, version 13: long-term memory, the facts each user asked the agent to remember (owner is
-- <platform>:<user id>; status active or pending the user's approval). New table only, so a node of the previous
-- version keeps working on this schema.
CREATE TABLE memories (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner      TEXT COLLATE "C" NOT NULL,
    text       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    source     TEXT,
    status     TEXT NOT NULL
);
CREATE INDEX memories_by_owner ON memories (owner, id);
