-- Herald's SQLite schema, version 9: scheduled jobs and their occurrences.
-- A job's next run is claimed by one conditional UPDATE of next_run_at (compare-and-set), which records the
-- occurrence in schedule_runs in the same transaction; (job_id, scheduled_at) is an occurrence's identity.
CREATE TABLE schedule_jobs (
    id               TEXT    NOT NULL PRIMARY KEY,
    prompt           TEXT    NOT NULL,
    schedule         TEXT    NOT NULL,               -- as written: '0 9 * * 1-5', 'every 30m', 'at 2026-12-24T09:00+01:00'
    time_zone        TEXT    NOT NULL,               -- IANA zone local times are read in
    anchor_at        INTEGER NOT NULL,               -- 'every' counts from here
    source           TEXT    NOT NULL,               -- JSON: the chat it runs in and the user it runs as
    misfire          TEXT    NOT NULL,               -- run_once or skip
    catch_up_seconds INTEGER NOT NULL CHECK (catch_up_seconds >= 0),
    enabled          INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    defined_by       TEXT    NOT NULL,               -- config, chat or agent
    created_by       TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    next_run_at      INTEGER,                        -- null: no more runs
    last_run_at      INTEGER,
    last_outcome     TEXT,
    last_outcome_at  INTEGER
) WITHOUT ROWID;
-- Finding due jobs without reading the others.
CREATE INDEX schedule_jobs_due ON schedule_jobs (next_run_at) WHERE enabled = 1 AND next_run_at IS NOT NULL;

CREATE TABLE schedule_runs (
    job_id       TEXT    NOT NULL REFERENCES schedule_jobs (id) ON DELETE CASCADE,
    scheduled_at INTEGER NOT NULL,
    kind         TEXT    NOT NULL,                   -- on_time, catch_up, manual, not_run
    state        TEXT    NOT NULL,                   -- CLAIMED, SUBMITTED, DONE
    platform     TEXT    NOT NULL,                   -- with message_id: the turn's dedupe key
    message_id   TEXT    NOT NULL,
    outcome      TEXT,
    claimed_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (job_id, scheduled_at)
) WITHOUT ROWID;
-- Occurrences not done yet (the resubmission sweep, settling ended turns, a job's open run).
CREATE INDEX schedule_runs_open ON schedule_runs (state, claimed_at) WHERE state <> 'DONE';
CREATE INDEX schedule_runs_done ON schedule_runs (updated_at) WHERE state = 'DONE';
