package dev.herald.store.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pooled JDBC connection inside an open transaction, with the few statement shapes the stores use.
 * The driver keeps server-side prepared statements per connection by SQL text, so each call prepares
 * afresh here without re-parsing on the server. Used by one thread for one transaction.
 */
final class PgConn {
    private static final Logger log = LoggerFactory.getLogger(PgConn.class);

    private final Connection connection;

    PgConn(Connection connection) {
        this.connection = connection;
    }

    /** Runs a statement without parameters or results (DDL, locks). */
    void exec(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    int update(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = bind(sql, args)) {
            return ps.executeUpdate();
        }
    }

    /**
     * Runs an update that a unique index may refuse, inside a savepoint: a refusal rolls back only this
     * statement (the transaction goes on) and counts as zero rows changed.
     */
    int updateUnlessDuplicate(String sql, Object... args) throws SQLException {
        Savepoint savepoint = connection.setSavepoint();
        try {
            int changed = update(sql, args);
            connection.releaseSavepoint(savepoint);
            return changed;
        } catch (SQLException e) {
            if (!PgErrors.uniqueViolation(e)) {
                throw e;
            }
            connection.rollback(savepoint);
            return 0;
        }
    }

    /** The first row mapped, or empty when there is none. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        try (PreparedStatement ps = bind(sql, args); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(mapper.map(rs)) : Optional.empty();
        }
    }

    <T> List<T> list(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        List<T> out = new ArrayList<>();
        try (PreparedStatement ps = bind(sql, args); ResultSet rs = ps.executeQuery()) {
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
    <T> List<T> listReadable(String sql, RowMapper<T> mapper, Function<ResultSet, String> subject, Object... args)
            throws SQLException {
        List<T> out = new ArrayList<>();
        try (PreparedStatement ps = bind(sql, args); ResultSet rs = ps.executeQuery()) {
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
    long scalar(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = bind(sql, args); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0L;
        }
    }

    boolean exists(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = bind(sql, args); ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    private PreparedStatement bind(String sql, Object... args) throws SQLException {
        PreparedStatement ps = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }
}
