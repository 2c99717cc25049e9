package dev.herald.store.sqlite;

import dev.herald.store.jdbc.JdbcTurnStore;
import dev.herald.store.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;

/**
 * Turns on SQLite ({@link JdbcTurnStore}). Every write runs on the one writer, so a new turn's id is the
 * connection's last insert rowid.
 */
final class SqliteTurnStore extends JdbcTurnStore<SqlConn> {
    SqliteTurnStore(Transactions<SqlConn> tx, Clock clock) {
        super(tx, clock, "");
    }

    @Override
    protected Optional<Long> insertReceived(SqlConn c, Object... args) throws SQLException {
        return c.update(RECEIVE, args) == 0 ? Optional.empty() : Optional.of(c.lastInsertRowId());
    }
}
