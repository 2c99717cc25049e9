package dev.herald.store.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh database on the shared {@link PostgresTestServer} for one test: created on first use, kept for
 * every reopen within the test, dropped after the test (after its {@code @AfterEach} methods closed the
 * store). Register it as an instance field: {@code @RegisterExtension final TestDatabase db = new TestDatabase();}.
 * Beside the store, {@link #update} and {@link #text} reach into the database with plain JDBC.
 */
public final class TestDatabase implements AfterEachCallback {
    /** Connections per store in tests: small, so a test JVM holds few. */
    private static final int POOL = 4;

    private String name;

    /** The database's name, creating it on the first call. */
    public synchronized String name() {
        if (name == null) {
            name = PostgresTestServer.createDatabase();
        }
        return name;
    }

    public String url() {
        return PostgresTestServer.url(name());
    }

    /** Options for a store on this database, as the trusted superuser. */
    public PostgresOptions options() {
        return new PostgresOptions(url(), "postgres", null, POOL, PostgresOptions.DEFAULT_CONNECT_TIMEOUT);
    }

    public int update(String sql, Object... args) {
        try (Connection c = connect(); PreparedStatement ps = bind(c, sql, args)) {
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first column of the first row as text, or null when there is no row. */
    public String text(String sql, Object... args) {
        try (Connection c = connect(); PreparedStatement ps = bind(c, sql, args); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "postgres", null);
    }

    private static PreparedStatement bind(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        return ps;
    }

    @Override
    public synchronized void afterEach(ExtensionContext context) {
        if (name != null) {
            PostgresTestServer.dropDatabase(name);
            name = null;
        }
    }
}
