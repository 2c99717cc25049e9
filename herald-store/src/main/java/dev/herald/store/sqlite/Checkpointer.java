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
 * for the next round. A failing checkpoint (the disk is full) is logged when it starts failing and when it works again,
 * not every round. The same thread looks at the free disk space ({@link FreeSpace}) every {@link #SPACE_EVERY}.
 */
final class Checkpointer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Checkpointer.class);

    private final SqlConn conn;
    private final Path file;
    private final ScheduledExecutorService thread;
    /** How often the free disk space is looked at. */
    static final Duration SPACE_EVERY = Duration.ofSeconds(10);
    private int failing; // checkpointer thread only: rounds failed in a row

    Checkpointer(SqlConn conn, Path file, Duration every, FreeSpace space) {
        this.conn = conn;
        this.file = file;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().name("herald-store-checkpointer").daemon(true).unstarted(r));
        long ms = every.toMillis();
        thread.scheduleWithFixedDelay(this::checkpoint, ms, ms, TimeUnit.MILLISECONDS);
        if (space != null) {
            thread.scheduleWithFixedDelay(space::check, 0, SPACE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void checkpoint() {
        try {
            conn.exec("PRAGMA wal_checkpoint(PASSIVE)");
            if (failing > 0) {
                log.info("store - background checkpoints of {} work again after {} failed round(s)", file, failing);
                failing = 0;
            }
        } catch (SQLException | RuntimeException e) {
            if (failing++ == 0) {
                log.warn("store - background checkpoint of {} failed ({}); every round retries, and a success is logged", file,
                        e.getMessage());
            }
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
