package dev.herald.bench;

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
 * An embedded PostgreSQL server (zonky) the soak can stop and start again on the same port and data directory, as an
 * operator restarting the database would: {@link #stop} is {@code pg_ctl stop -m fast} (open sessions are cut off),
 * {@link #start} runs the same binaries on the kept data.
 */
final class SoakPostgres implements AutoCloseable {
    private final Path data;
    private final int port;
    private EmbeddedPostgres server;

    private SoakPostgres(Path data, int port) {
        this.data = data;
        this.port = port;
    }

    /** A new server with its data directory at {@code data}, on a free loopback port. */
    static SoakPostgres start(Path data) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        SoakPostgres pg = new SoakPostgres(data, port);
        pg.start();
        return pg;
    }

    /** Starts the server (again) on the same port and data directory. */
    synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            Files.createDirectories(data);
            server = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false).setPort(port)
                    .setPGStartupWait(Duration.ofSeconds(60)).setServerConfig("max_connections", "300")
                    .setRegisterShutdownHook(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("soak - could not start the embedded PostgreSQL server on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Stops the server; its data stays. */
    synchronized void stop() {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("soak - could not stop the embedded PostgreSQL server on port " + port + ": " + e.getMessage(), e);
        } finally {
            server = null;
        }
    }

    /** Creates database {@code name} and returns its JDBC URL (user postgres, no password). */
    synchronized String database(String name) throws SQLException {
        try (Connection c = server.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return "jdbc:postgresql://localhost:" + port + "/" + name;
    }

    @Override
    public void close() {
        stop();
    }
}
