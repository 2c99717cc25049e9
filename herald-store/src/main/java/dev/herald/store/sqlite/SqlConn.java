package dev.herald.store.sqlite;

import dev.herald.core.session.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * One JDBC connection with its prepared statements cached by SQL text. Used by one thread at a time
 * (the writer owns one; readers borrow one from the pool), so the cache needs no locking.
 */
final class SqlConn implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SqlConn.class);

    private final Connection connection;
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    SqlConn(Connection connection) {
        this.connection = connection;
    }

    /** Runs a statement without parameters or results (pragmas, transaction control, DDL). */
    void exec(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    int update(String sql, Object... args) throws SQLException {
        return bind(sql, args).executeUpdate();
    }

    /** The first row mapped, or empty when there is none. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        try (ResultSet rs = bind(sql, args).executeQuery()) {
            return rs.next() ? Optional.of(mapper.map(rs)) : Optional.empty();
        }
    }

    <T> List<T> list(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        List<T> out = new ArrayList<>();
        try (ResultSet rs = bind(sql, args).executeQuery()) {
            while (rs.next()) {
                out.add(mapper.map(rs));
            }
        }
        return out;
    }

    /**
     * Every row mapped, except rows that cannot be decoded: those are logged with their subject
     * (named by {@code subject} from the raw row) and skipped.
     */
    <T> List<T> listReadable(String sql, RowMapper<T> mapper, Function<ResultSet, String> subject, Object... args)
            throws SQLException {
        List<T> out = new ArrayList<>();
        try (ResultSet rs = bind(sql, args).executeQuery()) {
            while (rs.next()) {
                try {
                    out.add(mapper.map(rs));
                } catch (RowDecodeException e) {
                    log.warn("store - skipped unreadable row {} ({}); it was left untouched", subject.apply(rs), e.problem());
                }
            }
        }
        return out;
    }

    long scalar(String sql, Object... args) throws SQLException {
        try (ResultSet rs = bind(sql, args).executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0L;
        }
    }

    boolean exists(String sql, Object... args) throws SQLException {
        try (ResultSet rs = bind(sql, args).executeQuery()) {
            return rs.next();
        }
    }

    long lastInsertRowId() throws SQLException {
        return scalar("SELECT last_insert_rowid()");
    }

    private PreparedStatement bind(String sql, Object... args) throws SQLException {
        PreparedStatement ps = statements.get(sql);
        if (ps == null) {
            ps = connection.prepareStatement(sql);
            statements.put(sql, ps);
        }
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        return ps;
    }

    @Override
    public void close() throws SQLException {
        for (PreparedStatement ps : statements.values()) {
            ps.close();
        }
        statements.clear();
        connection.close();
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
