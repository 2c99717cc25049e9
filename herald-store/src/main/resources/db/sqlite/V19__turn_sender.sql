-- Herald's SQLite schema, version 19: the user id of a turn's sender in a column of its own (it was only inside the
-- source JSON), indexed with the platform and the time the message came in, so that the admin page adds up each
-- account's turns and tokens (its web chat, its API keys, its linked chat identities) without reading other people's
-- turns. The index's entry is written once, when the turn is received: its columns never change. Turns stored before
-- get their user id from their source; a source that is not valid JSON (a damaged row) leaves it empty. A node of the
-- previous version still running (a rolling upgrade) stores turns without it, and those are not counted.
ALTER TABLE turns ADD COLUMN user_id TEXT;
UPDATE turns SET user_id = json_extract(source, '$.user_id') WHERE json_valid(source);
CREATE INDEX turns_by_sender ON turns (platform, user_id, received_at);
