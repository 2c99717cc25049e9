package dev.herald.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JDBC connection with the few statement shapes the stores use, whatever the database. Used by one
 * thread at a time. A dialect decides where prepared statements come from ({@link #prepare}) and whether
 * they are closed after each use ({@link #release}): SQLite keeps them cached by SQL text, PostgreSQL's
 * driver caches on the server side, so there each use prepares afresh and closes.
 */
public abstract class JdbcConn {
    private final Logger log = LoggerFactory.getLogger(getClass());
    private final Connection connection;

    protected JdbcConn(Connection connection) {
        this.connection = connection;
    }

    /** The JDBC connection, for what a dialect does beyond these shapes (savepoints, closing). */
    protected final Connection connection() {
        return connection;
    }

    /** The statement for {@code sql}, parameters not yet bound. */
    protected abstract PreparedStatement prepare(String sql) throws SQLException;

    /** Done with a statement from {@link #prepare}: closes it unless the dialect keeps it for the next use. */
    protected abstract void release(PreparedStatement statement) throws SQLException;

    /** Runs a statement without parameters or results (pragmas, transaction control, DDL, locks). */
    public final void exec(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /**
     * Runs a statement without parameters or results that this connection runs again and again (a writer's BEGIN,
     * COMMIT and savepoints): prepared once where the dialect keeps statements, instead of parsed on every use.
     */
    public final void execAgain(String sql) throws SQLException {
        PreparedStatement statement = prepare(sql);
        try {
            statement.execute();
        } finally {
            release(statement);
        }
    }

    /** Runs an INSERT, UPDATE or DELETE and returns how many rows it changed. */
    public final int update(String sql, Object... args) throws SQLException {
        try (Bound b = bind(sql, args)) {
            return b.statement().executeUpdate();
        }
    }

    /**
     * Runs an update that a unique index may refuse: a refusal changes nothing, counts as zero rows changed,
     * and the transaction goes on. Other failures are thrown.
     */
    public abstract int updateUnlessDuplicate(String sql, Object... args) throws SQLException;

    /** The first row mapped, or empty when there is none. */
    public final <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        try (Bound b = bind(sql, args); ResultSet rs = b.statement().executeQuery()) {
            return rs.next() ? Optional.of(mapper.map(rs)) : Optional.empty();
        }
    }

    /** Every row mapped. */
    public final <T> List<T> list(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        List<T> out = new ArrayList<>();
        try (Bound b = bind(sql, args); ResultSet rs = b.statement().executeQuery()) {
            while (rs.next()) {
                out.add(mapper.map(rs));
            }
        }
        return out;
    }

    /**
     * Every row mapped, except rows that cannot be decoded: those are logged with their subject (named
     * by {@code subject} from the raw row) and skipped; they stay in the database as they are.
     */
    public final <T> List<T> listReadable(String sql, RowMapper<T> mapper, Function<ResultSet, String> subject, Object... args)
            throws SQLException {
        List<T> out = new ArrayList<>();
        try (Bound b = bind(sql, args); ResultSet rs = b.statement().executeQuery()) {
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

    /** The first column of the first row as a number; 0 when there is no row or it is NULL. */
    public final long scalar(String sql, Object... args) throws SQLException {
        try (Bound b = bind(sql, args); ResultSet rs = b.statement().executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0L;
        }
    }

    /** Whether the query returns a row. */
    public final boolean exists(String sql, Object... args) throws SQLException {
        try (Bound b = bind(sql, args); ResultSet rs = b.statement().executeQuery()) {
            return rs.next();
        }
    }

    private Bound bind(String sql, Object... args) throws SQLException {
        Bound b = new Bound(this, prepare(sql));
        try {
            for (int i = 0; i < args.length; i++) {
                b.statement().setObject(i + 1, args[i]);
            }
            return b;
        } catch (SQLException | RuntimeException e) {
            b.close();
            throw e;
        }
    }

    /** A statement with its parameters bound, handed back to {@link #release} when the call is done with it. */
    private record Bound(JdbcConn owner, PreparedStatement statement) implements AutoCloseable {
        @Override
        public void close() throws SQLException {
            owner.release(statement);
        }
    }
}
