package dev.herald.store.sqlite;

import dev.herald.core.session.StoreException;
import dev.herald.store.jdbc.JdbcConn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * One SQLite connection with its prepared statements cached by SQL text. Used by one thread at a time
 * (the writer owns one; readers borrow one from the pool), so the cache needs no locking.
 */
final class SqlConn extends JdbcConn implements AutoCloseable {
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    SqlConn(Connection connection) {
        super(connection);
    }

    @Override
    protected PreparedStatement prepare(String sql) throws SQLException {
        PreparedStatement ps = statements.get(sql);
        if (ps == null) {
            ps = connection().prepareStatement(sql);
            statements.put(sql, ps);
        }
        return ps;
    }

    /** Cached statements stay open until {@link #close}. */
    @Override
    protected void release(PreparedStatement statement) {
    }

    /** SQLite backs out just the refused statement; the transaction goes on. */
    @Override
    public int updateUnlessDuplicate(String sql, Object... args) throws SQLException {
        try {
            return update(sql, args);
        } catch (SQLException e) {
            if (!uniqueViolation(e)) {
                throw e;
            }
            return 0;
        }
    }

    long lastInsertRowId() throws SQLException {
        return scalar("SELECT last_insert_rowid()");
    }

    @Override
    public void close() throws SQLException {
        for (PreparedStatement ps : statements.values()) {
            ps.close();
        }
        statements.clear();
        connection().close();
    }

    /** Whether the failure was lock contention (another process holds the database), so retrying can help. */
    static boolean retryable(SQLException e) {
        if (e instanceof SQLiteException s) {
            SQLiteErrorCode code = s.getResultCode();
            return code == SQLiteErrorCode.SQLITE_BUSY || code == SQLiteErrorCode.SQLITE_LOCKED
                    || code.name().startsWith("SQLITE_BUSY_") || code.name().startsWith("SQLITE_LOCKED_");
        }
        return false;
    }

    /** Whether the failure was a UNIQUE or PRIMARY KEY constraint. */
    static boolean uniqueViolation(SQLException e) {
        if (!(e instanceof SQLiteException s) || !s.getResultCode().name().startsWith("SQLITE_CONSTRAINT")) {
            return false;
        }
        String m = String.valueOf(e.getMessage());
        return m.contains("UNIQUE constraint failed") || m.contains("PRIMARY KEY");
    }

    static StoreException failure(String subject, SQLException e) {
        return StoreException.unavailable(subject, e, retryable(e));
    }
}
