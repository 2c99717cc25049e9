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
 * @param outageWait      how long a write waits, retrying, while the database cannot be written (a full disk) before it
 *                        fails ({@code store.outage_wait_seconds})
 * @param lowSpaceBytes   free space on the database's file system under which the store warns (logged once, shown on the
 *                        admin page; {@code store.low_space_warning_mb}); 0 turns the warning off
 */
public record SqliteOptions(Synchronous synchronous, Duration busyTimeout, int readConnections, int maxBatch, Duration outageWait,
        long lowSpaceBytes) {
    /** How long a write waits for a database that cannot be written, by default. */
    public static final Duration DEFAULT_OUTAGE_WAIT = dev.herald.store.jdbc.StoreOutage.DEFAULT_WAIT;
    /** The free space under which the store warns, by default: 512 MiB. */
    public static final long DEFAULT_LOW_SPACE_BYTES = 512L * 1024 * 1024;

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
        Objects.requireNonNull(outageWait, "outageWait");
        if (outageWait.isNegative() || outageWait.toSeconds() > 3600) {
            throw new IllegalArgumentException("store - an outage wait of " + outageWait.toSeconds() + " s is out of range (0..3600 s)");
        }
        if (lowSpaceBytes < 0) {
            throw new IllegalArgumentException("store - a low-space warning at " + lowSpaceBytes + " bytes is out of range (0 or more)");
        }
    }

    /** FULL sync, 5 s busy timeout, 4 readers, batches of up to 256 writes, 60 s outage wait, a warning under 512 MiB free. */
    public static SqliteOptions defaults() {
        return new SqliteOptions(Synchronous.FULL, Duration.ofSeconds(5), 4, 256, DEFAULT_OUTAGE_WAIT, DEFAULT_LOW_SPACE_BYTES);
    }

    /** The given options, others as in {@link #defaults()}. */
    public SqliteOptions(Synchronous synchronous, Duration busyTimeout, int readConnections, int maxBatch) {
        this(synchronous, busyTimeout, readConnections, maxBatch, DEFAULT_OUTAGE_WAIT, DEFAULT_LOW_SPACE_BYTES);
    }

    public SqliteOptions withSynchronous(Synchronous level) {
        return new SqliteOptions(level, busyTimeout, readConnections, maxBatch, outageWait, lowSpaceBytes);
    }

    /** These options with writes waiting up to {@code wait} for a database that cannot be written. */
    public SqliteOptions withOutageWait(Duration wait) {
        return new SqliteOptions(synchronous, busyTimeout, readConnections, maxBatch, wait, lowSpaceBytes);
    }

    /** These options warning when less than {@code bytes} are free where the database lives (0: never). */
    public SqliteOptions withLowSpaceWarning(long bytes) {
        return new SqliteOptions(synchronous, busyTimeout, readConnections, maxBatch, outageWait, bytes);
    }
}
