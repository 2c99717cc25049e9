-- Herald's SQLite schema, version 12: turns_by_state indexes only the turns that are not finished.
-- Every state change of a turn moved its entry in turns_by_state, an index over every turn ever received, so a finished
-- turn's entry went on into a range that only grows, and each commit dirtied the pages of several ranges. Queried only
-- for unfinished turns (start-up, drain, delivery retries, waiting turns), it now holds only those: a finished turn
-- leaves it. SQLite uses a partial index only for a query whose WHERE clause contains the index's own condition, so
-- every query on it names that condition (JdbcTurnStore.UNFINISHED). A node of the previous version still
-- running (a rolling upgrade) reads the same rows; its queries scan the table instead.
DROP INDEX turns_by_state;
CREATE INDEX turns_by_state ON turns (state, id) WHERE state IN ('RECEIVED', 'RUNNING', 'AWAITING_DELIVERY');
