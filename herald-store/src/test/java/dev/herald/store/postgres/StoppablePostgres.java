package dev.herald.store.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A PostgreSQL server of its own for a test that stops it (an outage) and starts it again on the same port and data
 * directory, as an operator restarting the database would: {@link #stop} is {@code pg_ctl stop -m fast} (running
 * sessions are cut off), {@link #start} runs the same binaries on the kept data. Not the shared {@link PostgresTestServer}:
 * the other tests' databases must not go away.
 */
public final class StoppablePostgres implements AutoCloseable {
    private final Path data;
    private final int port;
    private EmbeddedPostgres server;

    private StoppablePostgres(Path data, int port) {
        this.data = data;
        this.port = port;
    }

    /** Starts a new server with a data directory in {@code parent} (a JUnit temporary folder) and one database, herald. */
    public static StoppablePostgres start(Path parent) {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StoppablePostgres pg = new StoppablePostgres(parent.resolve("pgdata"), port);
        pg.start();
        pg.admin("CREATE DATABASE herald");
        return pg;
    }

    /** Starts the server (again) on the same port and data directory. */
    public synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            Files.createDirectories(data);
            server = EmbeddedPostgres.builder()
                    .setDataDirectory(data)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setPGStartupWait(Duration.ofSeconds(30))
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .setRegisterShutdownHook(true)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded PostgreSQL server on port " + port, e);
        }
    }

    /** Stops the server as {@code pg_ctl stop -m fast} does: connections are cut off; the data stays. */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop the embedded PostgreSQL server", e);
        } finally {
            server = null;
        }
    }

    /** Options for a store on the herald database, as the trusted superuser. */
    public PostgresOptions options() {
        return new PostgresOptions("jdbc:postgresql://localhost:" + port + "/herald", "postgres", null, 4, Duration.ofSeconds(2));
    }

    private void admin(String sql) {
        try (Connection c = server.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("embedded PostgreSQL refused: " + sql, e);
        }
    }

    @Override
    public void close() {
        stop();
    }
}
