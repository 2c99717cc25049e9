-- Herald's PostgreSQL schema, version 5: scheduled jobs and their occurrences (SQLite's version 9).
-- A job's next run is claimed by one conditional UPDATE of next_run_at (compare-and-set), which records the
-- occurrence in schedule_runs in the same transaction; of several nodes that read the same due time, one
-- claims it. enabled is an INTEGER 0/1, as in SQLite, so the statements are the same for both.
CREATE TABLE schedule_jobs (
    id               TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    prompt           TEXT    NOT NULL,
    schedule         TEXT    NOT NULL,               -- as written: '0 9 * * 1-5', 'every 30m', 'at 2026-12-24T09:00+01:00'
    time_zone        TEXT    NOT NULL,               -- IANA zone local times are read in
    anchor_at        BIGINT  NOT NULL,               -- 'every' counts from here
    source           TEXT    NOT NULL,               -- JSON: the chat it runs in and the user it runs as
    misfire          TEXT    NOT NULL,               -- run_once or skip
    catch_up_seconds BIGINT  NOT NULL CHECK (catch_up_seconds >= 0),
    enabled          INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    defined_by       TEXT    NOT NULL,               -- config, chat or agent
    created_by       TEXT,
    created_at       BIGINT  NOT NULL,
    updated_at       BIGINT  NOT NULL,
    next_run_at      BIGINT,                         -- null: no more runs
    last_run_at      BIGINT,
    last_outcome     TEXT,
    last_outcome_at  BIGINT
);
-- Finding due jobs without reading the others.
CREATE INDEX schedule_jobs_due ON schedule_jobs (next_run_at) WHERE enabled = 1 AND next_run_at IS NOT NULL;

CREATE TABLE schedule_runs (
    job_id       TEXT COLLATE "C" NOT NULL REFERENCES schedule_jobs (id) ON DELETE CASCADE,
    scheduled_at BIGINT NOT NULL,
    kind         TEXT   NOT NULL,                    -- on_time, catch_up, manual, not_run
    state        TEXT   NOT NULL,                    -- CLAIMED, SUBMITTED, DONE
    platform     TEXT   NOT NULL,                    -- with message_id: the turn's dedupe key
    message_id   TEXT   NOT NULL,
    outcome      TEXT,
    claimed_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (job_id, scheduled_at)
);
-- Occurrences not done yet (the resubmission sweep, settling ended turns, a job's open run).
CREATE INDEX schedule_runs_open ON schedule_runs (state, claimed_at) WHERE state <> 'DONE';
CREATE INDEX schedule_runs_done ON schedule_runs (updated_at) WHERE state = 'DONE';
