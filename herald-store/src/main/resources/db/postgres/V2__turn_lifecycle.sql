-- Herald's PostgreSQL schema, version 2: what ended a failed turn (for the operator: log, admin page).
ALTER TABLE turns ADD COLUMN error TEXT;
