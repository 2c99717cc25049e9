-- Herald's PostgreSQL schema, version 8: turns_by_state indexes only the turns that are not finished.
-- Every state change of a turn moved its entry in turns_by_state, an index over every turn ever received, so a finished
-- turn's entry went on into a range that only grows. Queried only for unfinished turns (start-up, drain, delivery
-- retries, waiting turns), it now holds only those: a finished turn leaves it. A prepared statement's generic plan uses
-- a partial index only when its WHERE clause implies the index's condition whatever the parameters, so every query on it
-- names that condition (JdbcTurnStore.UNFINISHED). A node of the previous version still running (a rolling
-- upgrade) reads the same rows; its queries scan the table instead.
DROP INDEX turns_by_state;
CREATE INDEX turns_by_state ON turns (state, id) WHERE state IN ('RECEIVED', 'RUNNING', 'AWAITING_DELIVERY');
