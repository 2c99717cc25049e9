package dev.herald.store.postgres;

import dev.herald.store.jdbc.JdbcConn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * One pooled JDBC connection inside an open transaction. The driver keeps server-side prepared statements
 * per connection by SQL text, so each call prepares afresh here (and closes after) without re-parsing on
 * the server. Used by one thread for one transaction.
 */
final class PgConn extends JdbcConn {
    PgConn(Connection connection) {
        super(connection);
    }

    @Override
    protected PreparedStatement prepare(String sql) throws SQLException {
        return connection().prepareStatement(sql);
    }

    @Override
    protected void release(PreparedStatement statement) throws SQLException {
        statement.close();
    }

    /** Inside a savepoint: a refusal rolls back only this statement, as PostgreSQL would otherwise abort the transaction. */
    @Override
    public int updateUnlessDuplicate(String sql, Object... args) throws SQLException {
        Savepoint savepoint = connection().setSavepoint();
        try {
            int changed = update(sql, args);
            connection().releaseSavepoint(savepoint);
            return changed;
        } catch (SQLException e) {
            if (!PgErrors.uniqueViolation(e)) {
                throw e;
            }
            connection().rollback(savepoint);
            return 0;
        }
    }
}
