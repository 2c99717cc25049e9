-- Herald's PostgreSQL schema, version 4: the turn lifecycle.
-- What ended a failed turn (for the operator: log, admin page).
ALTER TABLE turns ADD COLUMN error TEXT;
-- Delivery of a reply part by part: the part whose send is under way (its answer not recorded yet: after a crash,
-- in doubt), and the platform's ids of the confirmed parts before the last (a JSON array).
ALTER TABLE turns ADD COLUMN sending_part INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN part_message_ids TEXT;
