package dev.herald.store.sqlite;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies committed WAL frames back into the database file on its own thread and connection, so that
 * no commit pays for a checkpoint (SQLite otherwise runs one inside the commit that crosses 1000 WAL
 * pages, and with {@code synchronous=FULL} that includes an fsync of the database file). PASSIVE
 * checkpoints never block the writer or the readers; a frame still needed by a reader is simply left
 * for the next round.
 */
final class Checkpointer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Checkpointer.class);

    private final SqlConn conn;
    private final Path file;
    private final ScheduledExecutorService thread;

    Checkpointer(SqlConn conn, Path file, Duration every) {
        this.conn = conn;
        this.file = file;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().name("herald-store-checkpointer").daemon(true).unstarted(r));
        long ms = every.toMillis();
        thread.scheduleWithFixedDelay(this::checkpoint, ms, ms, TimeUnit.MILLISECONDS);
    }

    private void checkpoint() {
        try {
            conn.exec("PRAGMA wal_checkpoint(PASSIVE)");
        } catch (SQLException | RuntimeException e) {
            log.warn("store - background checkpoint of {} failed ({}); the next round retries", file, e.getMessage());
        }
    }

    /** Stops the thread after the round in progress and closes the connection. Idempotent. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                log.warn("store - background checkpoint of {} still running after 30 s at close", file);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            conn.close();
        } catch (SQLException e) {
            log.warn("store - closing the checkpoint connection of {} failed: {}", file, e.getMessage());
        }
    }
}
