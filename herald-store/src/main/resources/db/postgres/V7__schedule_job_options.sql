-- Herald's PostgreSQL schema, version 7: a scheduled job's own model profile and tool list.
-- Both are read from the job when its turn runs (and when a crash's resume turn continues it), so nothing else stores them.
-- NULL = not set: the turn runs with its chat's model and its platform's tools. Nullable columns only, so a node of the
-- previous version keeps working on this schema (it ignores them).
ALTER TABLE schedule_jobs ADD COLUMN model TEXT;   -- a profile name of models: (or default)
ALTER TABLE schedule_jobs ADD COLUMN tools TEXT;   -- JSON array of tool-list entries; '[]' = no tools
