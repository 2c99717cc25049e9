package dev.herald.store.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One real PostgreSQL server per test JVM (the binaries ship in a Maven artifact; no Docker), started on
 * first use and stopped by a shutdown hook. Tests get databases of their own from it ({@link TestDatabase}).
 *
 * <p>The server trusts every local login except {@link #PASSWORD_ROLE}'s, which must give
 * {@link #PASSWORD} (scram-sha-256), so tests can see what a wrong password does.
 */
public final class PostgresTestServer {
    /** A role that logs in with a password, for the tests of credentials. */
    public static final String PASSWORD_ROLE = "herald_secret_role";
    /** The right password of {@link #PASSWORD_ROLE}. */
    public static final String PASSWORD = "correct-horse-battery-staple";

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private PostgresTestServer() {
    }

    /** The running server, started on the first call. */
    public static synchronized EmbeddedPostgres server() {
        if (server == null) {
            server = start();
        }
        return server;
    }

    private static EmbeddedPostgres start() {
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setServerConfig("fsync", "off") // a test server: speed over crash safety
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .setDataDirectoryCustomizer(PostgresTestServer::requirePasswordOfTheSecretRole)
                    .setRegisterShutdownHook(false)
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException e) {
                    // the JVM is ending; the server's temporary directory is left behind at worst
                }
            }, "embedded-postgres-stop"));
            admin(pg, "CREATE ROLE " + PASSWORD_ROLE + " LOGIN SUPERUSER PASSWORD '" + PASSWORD + "'");
            return pg;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded PostgreSQL server", e);
        }
    }

    /** Puts password lines for {@link #PASSWORD_ROLE} before initdb's trust lines (the first match wins). */
    private static void requirePasswordOfTheSecretRole(java.io.File dataDirectory) {
        Path hba = dataDirectory.toPath().resolve("pg_hba.conf");
        try {
            String lines = "host all " + PASSWORD_ROLE + " 127.0.0.1/32 scram-sha-256\n"
                    + "host all " + PASSWORD_ROLE + " ::1/128 scram-sha-256\n";
            Files.writeString(hba, lines + Files.readString(hba));
        } catch (IOException e) {
            throw new UncheckedIOException("could not edit " + hba, e);
        }
    }

    /** Creates an empty database and returns its name. */
    public static String createDatabase() {
        String name = "herald_test_" + DATABASES.incrementAndGet();
        admin(server(), "CREATE DATABASE " + name);
        return name;
    }

    /** Drops a database, ending any connection still open to it. */
    public static void dropDatabase(String name) {
        admin(server(), "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    /** The JDBC URL of {@code database} on this server. */
    public static String url(String database) {
        return "jdbc:postgresql://localhost:" + server().getPort() + "/" + database;
    }

    /** Runs one statement as the superuser on the server's {@code postgres} database. */
    public static void admin(String sql) {
        admin(server(), sql);
    }

    private static void admin(EmbeddedPostgres pg, String sql) {
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("embedded PostgreSQL refused: " + sql, e);
        }
    }
}
