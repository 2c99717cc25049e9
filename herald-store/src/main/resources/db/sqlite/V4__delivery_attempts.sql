-- Herald's SQLite schema, version 4: delivery progress and failures of a turn's reply.
-- parts_delivered lets a split reply continue after the parts already sent; delivery_attempts and
-- delivery_error drive the background retry and /status. A lane's newest reply is found by its index.
ALTER TABLE turns ADD COLUMN parts_delivered INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN delivery_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN delivery_error TEXT;
CREATE INDEX turns_by_lane ON turns (session_key, id);
