-- Herald's SQLite schema, version 3: a suspension records why and when, for /status and the admin page.
-- Lanes suspended by an older version get the reason 'unrecorded'.
ALTER TABLE sessions ADD COLUMN suspend_reason TEXT;
ALTER TABLE sessions ADD COLUMN suspended_at INTEGER;
UPDATE sessions SET suspend_reason = 'unrecorded' WHERE suspended = 1;
