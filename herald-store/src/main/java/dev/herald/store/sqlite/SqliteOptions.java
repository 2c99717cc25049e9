package dev.herald.store.sqlite;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link SqliteStorage} opens its database; validated here, then fixed for the store's life.
 *
 * @param synchronous     {@link Synchronous#FULL} (default: a commit survives power loss) or
 *                        {@link Synchronous#NORMAL} (WAL commits skip the fsync; a crash of the process
 *                        loses nothing, a power cut may lose the last commits)
 * @param busyTimeout     how long a statement waits for a lock held by another process before failing
 * @param readConnections size of the read connection pool (WAL lets readers run beside the writer)
 * @param maxBatch        most queued writes committed together in one transaction (group commit)
 */
public record SqliteOptions(Synchronous synchronous, Duration busyTimeout, int readConnections, int maxBatch) {

    /** SQLite's {@code PRAGMA synchronous} levels that are safe with WAL. */
    public enum Synchronous {
        FULL,
        NORMAL
    }

    public SqliteOptions {
        Objects.requireNonNull(synchronous, "synchronous");
        Objects.requireNonNull(busyTimeout, "busyTimeout");
        if (busyTimeout.isNegative() || busyTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("store - busy timeout " + busyTimeout.toMillis() + " ms is out of range (0.." + Integer.MAX_VALUE + " ms)");
        }
        if (readConnections < 1 || readConnections > 64) {
            throw new IllegalArgumentException("store - " + readConnections + " read connections is out of range (1..64)");
        }
        if (maxBatch < 1 || maxBatch > 10_000) {
            throw new IllegalArgumentException("store - write batch of " + maxBatch + " is out of range (1..10000)");
        }
    }

    /** FULL sync, 5 s busy timeout, 4 readers, batches of up to 256 writes. */
    public static SqliteOptions defaults() {
        return new SqliteOptions(Synchronous.FULL, Duration.ofSeconds(5), 4, 256);
    }

    public SqliteOptions withSynchronous(Synchronous level) {
        return new SqliteOptions(level, busyTimeout, readConnections, maxBatch);
    }
}
