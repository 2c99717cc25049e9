-- Herald's SQLite schema, version 5: model token usage per turn (the lane's totals stay on sessions).
ALTER TABLE turns ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
