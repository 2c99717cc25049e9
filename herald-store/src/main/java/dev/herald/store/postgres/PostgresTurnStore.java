package dev.herald.store.postgres;

import dev.herald.store.jdbc.JdbcTurnStore;
import dev.herald.store.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;

/**
 * Turns on PostgreSQL ({@link JdbcTurnStore}). Nothing relies on this JVM: the unique indexes hold for every
 * writer on the database, a turn's first transcript row is appended under its session's row lock, and the
 * start-up sweep locks the running turns it interrupts.
 */
final class PostgresTurnStore extends JdbcTurnStore<PgConn> {
    /** Locks the running turns for the start-up sweep. */
    static final String RUNNING = """
            SELECT id, session_key, session_id, started_at, updated_at FROM turns WHERE state = 'RUNNING' ORDER BY id FOR UPDATE""";
    /** Resume-pending and suspended lanes keep what they have (spec B5). */
    static final String MARK_INTERRUPTED = """
            UPDATE sessions SET resume_pending = TRUE, resume_reason = ?, resume_marked_at = ?
            WHERE session_key = ? AND NOT resume_pending AND NOT suspended""";
    /** {@link #RECEIVE}, handing back the new turn's id (no row when the message was stored before). */
    static final String RECEIVE_RETURNING_ID = RECEIVE + " RETURNING id";

    PostgresTurnStore(Transactions<PgConn> tx, Clock clock) {
        super(tx, clock, TranscriptSql.LOCK, RUNNING, MARK_INTERRUPTED);
    }

    @Override
    protected Optional<Long> insertReceived(PgConn c, Object... args) throws SQLException {
        return c.one(RECEIVE_RETURNING_ID, rs -> rs.getLong(1), args);
    }
}
