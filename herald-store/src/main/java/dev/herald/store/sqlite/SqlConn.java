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

    /**
     * Closes every cached statement (the next use prepares it again). SQLite's driver closes a statement for good when
     * running it failed, so after a failure a cached one may be dead: without this, every later use of the same SQL
     * failed with "statement is not executing", even once the cause was gone.
     */
    void forgetStatements() {
        for (PreparedStatement ps : statements.values()) {
            try {
                ps.close();
            } catch (SQLException e) {
                // already closed by the driver
            }
        }
        statements.clear();
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

    /**
     * Whether the failure says the database cannot be written at all rather than that this statement was wrong: the
     * disk (or the file's size limit) is full, the file system refused a read or write, or it became read-only.
     */
    static boolean cannotWrite(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLiteException s) {
                String code = s.getResultCode().name();
                return code.equals("SQLITE_FULL") || code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_READONLY");
            }
        }
        return false;
    }

    /** The reason for a failure that {@link #cannotWrite}, in a few words that name nothing of the installation. */
    static String cannotWriteReason(Throwable e) {
        String code = resultCode(e);
        return code.equals("SQLITE_FULL") ? "the disk is full" : code.startsWith("SQLITE_READONLY") ? "the database became read-only"
                : "the disk failed a read or write";
    }

    /** The operator's reason for a failure that {@link #cannotWrite}, naming the file. */
    static String cannotWriteProblem(java.nio.file.Path file, Throwable e) {
        String code = resultCode(e);
        String what = code.equals("SQLITE_FULL") ? "the disk holding it (or its size limit) is full; free space there"
                : code.startsWith("SQLITE_READONLY") ? "it became read-only; check the file system and the file's permissions"
                : "the file system failed to read or write it; check the disk and free space";
        return file + " cannot be written (" + code + "): " + what;
    }

    /** The SQLite result code's name of the first SQLite failure in the chain ("?" when there is none). */
    static String resultCode(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLiteException s) {
                return s.getResultCode().name();
            }
        }
        return "?";
    }

    static StoreException failure(String subject, SQLException e) {
        return StoreException.unavailable(subject, e, retryable(e));
    }
}
