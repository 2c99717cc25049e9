package dev.herald.store.postgres;

import dev.herald.store.jdbc.JdbcTurnStore;
import dev.herald.store.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;

/**
 * Turns on PostgreSQL ({@link JdbcTurnStore}). Nothing relies on this JVM: the unique indexes hold for every
 * writer on the database, and a turn's first transcript row is appended under its session's row lock.
 */
final class PostgresTurnStore extends JdbcTurnStore<PgConn> {
    /** {@link #RECEIVE}, handing back the new turn's id (no row when the message was stored before). */
    static final String RECEIVE_RETURNING_ID = RECEIVE + " RETURNING id";

    PostgresTurnStore(Transactions<PgConn> tx, Clock clock) {
        super(tx, clock, TranscriptSql.LOCK);
    }

    @Override
    protected Optional<Long> insertReceived(PgConn c, Object... args) throws SQLException {
        return c.one(RECEIVE_RETURNING_ID, rs -> rs.getLong(1), args);
    }
}
