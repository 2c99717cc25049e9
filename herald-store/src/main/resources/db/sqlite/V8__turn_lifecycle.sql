-- Herald's SQLite schema, version 8: the turn lifecycle.
-- What ended a failed turn (for the operator: log, admin page).
ALTER TABLE turns ADD COLUMN error TEXT;
-- Delivery of a reply part by part: the part whose send is under way (its answer not recorded yet: after a crash,
-- in doubt), and the platform's ids of the confirmed parts before the last (a JSON array).
ALTER TABLE turns ADD COLUMN sending_part INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN part_message_ids TEXT;
-- The flags' partial indexes are declared on the bare flag, as on PostgreSQL, so that the stores' one SQL
-- (WHERE resume_pending AND NOT suspended; WHERE suspended) uses them on both databases.
DROP INDEX sessions_resume_pending;
CREATE INDEX sessions_resume_pending ON sessions (resume_marked_at, session_key) WHERE resume_pending;
DROP INDEX sessions_suspended;
CREATE INDEX sessions_suspended ON sessions (updated_at) WHERE suspended;
