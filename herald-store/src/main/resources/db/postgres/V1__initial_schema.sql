-- Herald's PostgreSQL schema, version 1: the SQLite schema as of its version 5, in one step.
-- Every time is epoch microseconds (UTC) in a BIGINT column, exactly as in SQLite.
-- Keys and ids are compared byte by byte (COLLATE "C"), as SQLite does, whatever the database's locale.
-- JSON documents are TEXT, not jsonb: a damaged one is kept and reported as an unreadable row.
-- Statements end with a semicolon at the end of a line (the migrator splits on that; no function bodies).

-- One transcript: a session id, its lane, its parent (compression child) and its end.
-- created_order breaks ties between children started in the same microsecond (SQLite uses its rowid).
CREATE TABLE transcript_sessions (
    id            TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    session_key   TEXT COLLATE "C",
    parent_id     TEXT COLLATE "C" REFERENCES transcript_sessions (id),
    started_at    BIGINT NOT NULL,
    ended_at      BIGINT,
    end_reason    TEXT,
    created_order BIGINT GENERATED ALWAYS AS IDENTITY,
    CHECK ((ended_at IS NULL) = (end_reason IS NULL))
);
-- Following compression to the tip: the newest child of a parent.
CREATE INDEX transcript_sessions_by_parent ON transcript_sessions (parent_id, started_at, created_order) WHERE parent_id IS NOT NULL;

-- One row per conversation lane. The stuck-loop counter (interrupted_restarts) lives here and only here.
CREATE TABLE sessions (
    session_key          TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    session_id           TEXT COLLATE "C" NOT NULL REFERENCES transcript_sessions (id),
    created_at           BIGINT  NOT NULL,
    updated_at           BIGINT  NOT NULL,
    origin               TEXT,                       -- the latest message's source, as JSON
    display_name         TEXT,
    platform             TEXT,                       -- the origin's platform (for listing by platform)
    chat_type            TEXT    NOT NULL DEFAULT 'dm',
    suspended            BOOLEAN NOT NULL DEFAULT FALSE,
    suspend_reason       TEXT,
    suspended_at         BIGINT,
    was_auto_reset       BOOLEAN NOT NULL DEFAULT FALSE,
    auto_reset_reason    TEXT,
    resume_pending       BOOLEAN NOT NULL DEFAULT FALSE,
    resume_reason        TEXT,
    resume_marked_at     BIGINT,
    interrupted_restarts INTEGER NOT NULL DEFAULT 0 CHECK (interrupted_restarts >= 0),
    input_tokens         BIGINT  NOT NULL DEFAULT 0,
    output_tokens        BIGINT  NOT NULL DEFAULT 0
);
-- Listing lanes to resume (oldest mark first) and stuck loops, without touching the other lanes.
CREATE INDEX sessions_resume_pending ON sessions (resume_marked_at, session_key) WHERE resume_pending;
CREATE INDEX sessions_interrupted ON sessions (interrupted_restarts) WHERE interrupted_restarts > 0;
-- Listing lanes for the admin page and `herald sessions`, newest activity first, without sorting the table.
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, session_key);
CREATE INDEX sessions_suspended ON sessions (updated_at DESC, session_key) WHERE suspended;

-- Transcript rows; seq is dense from 1 per session. created_at is null for legacy rows.
CREATE TABLE messages (
    session_id   TEXT COLLATE "C" NOT NULL REFERENCES transcript_sessions (id),
    seq          BIGINT NOT NULL CHECK (seq >= 1),
    role         TEXT   NOT NULL,
    content      TEXT,
    tool_calls   TEXT,                               -- JSON array, null when none
    tool_call_id TEXT,
    tool_name    TEXT,
    created_at   BIGINT,
    PRIMARY KEY (session_id, seq)
);

-- Turns: the durable inbound queue, the in-flight record and the outbox of final replies.
CREATE TABLE turns (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_key         TEXT COLLATE "C" NOT NULL,
    event_id            TEXT    NOT NULL UNIQUE,
    platform            TEXT    NOT NULL,
    source              TEXT    NOT NULL,            -- JSON
    text                TEXT    NOT NULL,
    platform_message_id TEXT,
    reply_to_message_id TEXT,
    origin              TEXT    NOT NULL,            -- USER or RESUME
    state               TEXT    NOT NULL,
    session_id          TEXT,
    outcome             TEXT,
    reply               TEXT,
    reply_message_id    TEXT,
    received_at         BIGINT  NOT NULL,
    started_at          BIGINT,
    updated_at          BIGINT  NOT NULL,
    parts_delivered     INTEGER NOT NULL DEFAULT 0,  -- parts of a split reply the platform confirmed
    delivery_attempts   INTEGER NOT NULL DEFAULT 0,
    delivery_error      TEXT,
    input_tokens        BIGINT  NOT NULL DEFAULT 0,
    output_tokens       BIGINT  NOT NULL DEFAULT 0
);
-- At most one RUNNING turn per lane: the claim's last line of defence, for every node on the database.
CREATE UNIQUE INDEX turns_one_running_per_lane ON turns (session_key) WHERE state = 'RUNNING';
-- Durable inbound dedupe.
CREATE UNIQUE INDEX turns_platform_message ON turns (platform, platform_message_id) WHERE platform_message_id IS NOT NULL;
CREATE INDEX turns_by_state ON turns (state, id);
-- A lane's newest started turn.
CREATE INDEX turns_by_lane ON turns (session_key, id);
