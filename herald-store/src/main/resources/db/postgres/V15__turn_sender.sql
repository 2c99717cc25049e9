-- Herald's PostgreSQL schema, version 15: the user id of a turn's sender in a column of its own (it was only inside the
-- source JSON), indexed with the platform and the time the message came in, so that the admin page adds up each
-- account's turns and tokens (its web chat, its API keys, its linked chat identities) without reading other people's
-- turns. The index's entry is written once, when the turn is received: its columns never change. Turns stored before
-- get their user id from their source, in one statement; when a source is not valid JSON (a damaged row) the rows are
-- filled one by one instead and that row is left empty. A node of the previous version still running (a rolling
-- upgrade) stores turns without it, and those are not counted.
ALTER TABLE turns ADD COLUMN user_id TEXT;
-- One statement for the migrator, which ends a statement at a line ending in ';': the block's own ';' are mid-line.
DO $$ DECLARE r RECORD; BEGIN
    BEGIN UPDATE turns SET user_id = source::json ->> 'user_id'; EXCEPTION WHEN others THEN
        FOR r IN SELECT id, source FROM turns LOOP
            BEGIN UPDATE turns SET user_id = r.source::json ->> 'user_id' WHERE id = r.id; EXCEPTION WHEN others THEN NULL; END
        ; END LOOP
    ; END
; END $$;
CREATE INDEX turns_by_sender ON turns (platform, user_id, received_at);
