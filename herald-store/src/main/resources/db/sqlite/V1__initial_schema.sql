-- Herald's SQLite schema, version 1.
-- Every time is epoch microseconds (UTC) in an INTEGER column, like PostgreSQL's timestamptz precision.
-- Statements end with a semicolon at the end of a line (the migrator splits on that; no triggers).

-- One transcript: a session id, its lane, its parent (compression child) and its end.
CREATE TABLE transcript_sessions (
    id          TEXT    NOT NULL PRIMARY KEY,
    session_key TEXT,
    parent_id   TEXT    REFERENCES transcript_sessions (id),
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    end_reason  TEXT,
    CHECK ((ended_at IS NULL) = (end_reason IS NULL))
);
-- Following compression to the tip: the newest child of a parent.
CREATE INDEX transcript_sessions_by_parent ON transcript_sessions (parent_id, started_at) WHERE parent_id IS NOT NULL;

-- One row per conversation lane. The stuck-loop counter (interrupted_restarts) lives here and only here.
CREATE TABLE sessions (
    session_key          TEXT    NOT NULL PRIMARY KEY,
    session_id           TEXT    NOT NULL REFERENCES transcript_sessions (id),
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    origin               TEXT,                       -- the latest message's source, as JSON
    display_name         TEXT,
    platform             TEXT,                       -- the origin's platform (for listing by platform)
    chat_type            TEXT    NOT NULL DEFAULT 'dm',
    suspended            INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
    was_auto_reset       INTEGER NOT NULL DEFAULT 0 CHECK (was_auto_reset IN (0, 1)),
    auto_reset_reason    TEXT,
    resume_pending       INTEGER NOT NULL DEFAULT 0 CHECK (resume_pending IN (0, 1)),
    resume_reason        TEXT,
    resume_marked_at     INTEGER,
    interrupted_restarts INTEGER NOT NULL DEFAULT 0 CHECK (interrupted_restarts >= 0),
    input_tokens         INTEGER NOT NULL DEFAULT 0,
    output_tokens        INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- Listing lanes to resume (oldest mark first) and stuck loops, without touching the other lanes.
CREATE INDEX sessions_resume_pending ON sessions (resume_marked_at) WHERE resume_pending = 1;
CREATE INDEX sessions_interrupted ON sessions (interrupted_restarts) WHERE interrupted_restarts > 0;

-- Transcript rows; seq is dense from 1 per session. created_at is null for legacy rows.
CREATE TABLE messages (
    session_id   TEXT    NOT NULL REFERENCES transcript_sessions (id),
    seq          INTEGER NOT NULL CHECK (seq >= 1),
    role         TEXT    NOT NULL,
    content      TEXT,
    tool_calls   TEXT,                               -- JSON array, null when none
    tool_call_id TEXT,
    tool_name    TEXT,
    created_at   INTEGER,
    PRIMARY KEY (session_id, seq)
);

-- Turns: the durable inbound queue, the in-flight record and the outbox of final replies.
CREATE TABLE turns (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    session_key         TEXT    NOT NULL,
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
    received_at         INTEGER NOT NULL,
    started_at          INTEGER,
    updated_at          INTEGER NOT NULL
);
-- At most one RUNNING turn per lane: the claim's last line of defence.
CREATE UNIQUE INDEX turns_one_running_per_lane ON turns (session_key) WHERE state = 'RUNNING';
-- Durable inbound dedupe.
CREATE UNIQUE INDEX turns_platform_message ON turns (platform, platform_message_id) WHERE platform_message_id IS NOT NULL;
CREATE INDEX turns_by_state ON turns (state, id);
