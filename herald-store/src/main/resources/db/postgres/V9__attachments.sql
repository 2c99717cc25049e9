-- Herald's PostgreSQL schema, version 9: attachments as data, not as lines of the text.
-- A JSON array of {kind, ref, mime_type, name, size} on the inbound turn and on its user transcript row; NULL = none.
-- reply_files: a JSON array of {path, name, mime_type, size, caption}, the files a turn's reply sends after its text.
-- Rows written before this version keep their attachments as "[attachment: ...]" lines of the text, which the agent
-- still reads. Nullable columns only, so a node of the previous version keeps working on this schema (it ignores them).
ALTER TABLE turns ADD COLUMN attachments TEXT;
ALTER TABLE messages ADD COLUMN attachments TEXT;
ALTER TABLE turns ADD COLUMN reply_files TEXT;
