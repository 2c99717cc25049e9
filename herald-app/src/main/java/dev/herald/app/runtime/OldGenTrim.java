package dev.herald.app.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the serial collector's old generation from filling the heap's ceiling with garbage.
 *
 * <p>The gateway runs on the serial collector (a small heap, see {@code bin/lib/jvm-options.sh}). That collector
 * promotes what outlives a few young collections (cache entries that are replaced, a turn's objects caught in flight)
 * and, while the heap may still grow, it grows the old generation to hold them rather than collect it: under steady
 * traffic the old generation grew by about 0.5 MB a second, all of it dead, and it would have grown to the 1 GB ceiling
 * before the first full collection (measured: 16 MB live in a 100 MB old generation after 100,000 turns, and growing).
 *
 * <p>This asks the JVM to tell it when the old generation's use passes a threshold (a usage threshold on that pool,
 * checked by the JVM after each collection), and then runs one full collection, on its own thread, at most once every
 * {@link #MIN_INTERVAL_MS} ms. The next threshold is {@link #LIVE_FACTOR} times what the collection left alive, and never
 * under the floor: the old generation holds its live objects and at most as much garbage again. A full collection of
 * this heap takes tens of milliseconds and comes once a minute or two at a thousand turns a second, never when idle.
 *
 * <p>Only the serial collector's pool ({@code Tenured Gen}) is watched; with another collector (named in
 * {@code HERALD_JAVA_OPTS}) this does nothing. {@code -Dherald.heap.trim_mib=0} turns it off, another value sets the floor.
 */
public final class OldGenTrim implements NotificationListener {
    private static final Logger LOG = LoggerFactory.getLogger("memory");
    /** The default floor of the threshold, in MiB. */
    public static final long DEFAULT_FLOOR_MIB = 32;
    static final int LIVE_FACTOR = 2;
    static final long MIN_INTERVAL_MS = 10_000;
    private static final String SERIAL_OLD_POOL = "Tenured Gen";

    private final MemoryPoolMXBean pool;
    private final long floorBytes;
    private final long minIntervalMs;
    private final AtomicBoolean trimming = new AtomicBoolean();
    private volatile long lastTrimNanos;
    private volatile int trims;

    private OldGenTrim(MemoryPoolMXBean pool, long floorBytes, long minIntervalMs) {
        this.pool = pool;
        this.floorBytes = floorBytes;
        this.minIntervalMs = minIntervalMs;
        this.lastTrimNanos = System.nanoTime() - java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(minIntervalMs); // the first may run at once
    }

    /** Watches the old generation with the floor from {@code herald.heap.trim_mib} (default 32); empty when off or not serial. */
    public static Optional<OldGenTrim> install() {
        long mib;
        try {
            mib = Long.parseLong(System.getProperty("herald.heap.trim_mib", String.valueOf(DEFAULT_FLOOR_MIB)).trim());
        } catch (NumberFormatException e) {
            LOG.warn("memory - herald.heap.trim_mib is not a whole number of MiB; using {}", DEFAULT_FLOOR_MIB);
            mib = DEFAULT_FLOOR_MIB;
        }
        return mib <= 0 ? Optional.empty() : install(mib * 1024 * 1024, MIN_INTERVAL_MS);
    }

    /** Watches the old generation with this floor; empty when the serial collector's pool is not there. */
    static Optional<OldGenTrim> install(long floorBytes, long minIntervalMs) {
        Optional<MemoryPoolMXBean> old = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP && SERIAL_OLD_POOL.equals(p.getName()) && p.isUsageThresholdSupported())
                .findFirst();
        if (old.isEmpty()) {
            return Optional.empty();
        }
        OldGenTrim trim = new OldGenTrim(old.get(), floorBytes, minIntervalMs);
        ((NotificationEmitter) ManagementFactory.getMemoryMXBean()).addNotificationListener(trim, null, null);
        trim.pool.setUsageThreshold(floorBytes);
        return Optional.of(trim);
    }

    /** Full collections run so far (for tests). */
    int trims() {
        return trims;
    }

    /** The current threshold in bytes (for tests). */
    long threshold() {
        return pool.getUsageThreshold();
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (!MemoryNotificationInfo.MEMORY_THRESHOLD_EXCEEDED.equals(notification.getType())
                || !(notification.getUserData() instanceof CompositeData data)
                || !pool.getName().equals(MemoryNotificationInfo.from(data).getPoolName())) {
            return;
        }
        if (!trimming.compareAndSet(false, true)) {
            return;
        }
        Thread.ofPlatform().daemon().name("herald-heap-trim").start(() -> {
            try {
                trim();
            } finally {
                trimming.set(false);
            }
        });
    }

    private void trim() {
        long sinceMs = (System.nanoTime() - lastTrimNanos) / 1_000_000;
        if (sinceMs < minIntervalMs) {
            try {
                Thread.sleep(minIntervalMs - sinceMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        long before = pool.getUsage().getUsed();
        long start = System.nanoTime();
        System.gc();
        lastTrimNanos = System.nanoTime();
        trims++;
        var after = pool.getCollectionUsage();
        long live = after == null ? pool.getUsage().getUsed() : after.getUsed();
        long max = pool.getUsage().getMax(); // -1 when the pool has no bound
        long next = Math.max(floorBytes, LIVE_FACTOR * live);
        next = max > 0 ? Math.min(next, max) : next;
        pool.setUsageThreshold(next);
        LOG.debug("memory - old generation collected: {} MB -> {} MB alive in {} ms; next at {} MB", before >> 20, live >> 20,
                (lastTrimNanos - start) / 1_000_000, next >> 20);
    }
}
