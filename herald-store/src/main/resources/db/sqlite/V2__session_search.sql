-- Herald's SQLite schema, version 2: listing lanes for the admin page and `herald sessions`,
-- newest activity first, without sorting the whole table.
CREATE INDEX sessions_by_updated ON sessions (updated_at);
CREATE INDEX sessions_suspended ON sessions (updated_at) WHERE suspended = 1;
