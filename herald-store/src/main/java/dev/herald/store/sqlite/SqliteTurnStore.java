package dev.herald.store.sqlite;

import dev.herald.store.jdbc.JdbcTurnStore;
import dev.herald.store.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;

/**
 * Turns on SQLite ({@link JdbcTurnStore}). Every write runs on the one writer, so the start-up sweep needs no
 * row locks and a new turn's id is the connection's last insert rowid.
 */
final class SqliteTurnStore extends JdbcTurnStore<SqlConn> {
    static final String RUNNING = "SELECT id, session_key, session_id, started_at, updated_at FROM turns WHERE state = 'RUNNING' ORDER BY id";
    /** Resume-pending and suspended lanes keep what they have (spec B5). */
    static final String MARK_INTERRUPTED = """
            UPDATE sessions SET resume_pending = 1, resume_reason = ?, resume_marked_at = ?
            WHERE session_key = ? AND resume_pending = 0 AND suspended = 0""";

    SqliteTurnStore(Transactions<SqlConn> tx, Clock clock) {
        super(tx, clock, "", RUNNING, MARK_INTERRUPTED);
    }

    @Override
    protected Optional<Long> insertReceived(SqlConn c, Object... args) throws SQLException {
        return c.update(RECEIVE, args) == 0 ? Optional.empty() : Optional.of(c.lastInsertRowId());
    }
}
