package dev.herald.store.jdbc;

import dev.herald.core.retry.Backoff;
import dev.herald.core.session.StoreException;
import dev.herald.core.session.StoreHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a store can write, and waiting out the times it cannot: one per store, told by the store's own calls.
 *
 * <p>States: writable, or down since an instant with the operator's reason. A call that fails for a reason of the store
 * as a whole ({@link StoreException#outage()}: SQLite's disk full or I/O error, PostgreSQL unreachable) moves it down
 * ({@link #cannotWrite}); a write that succeeds again moves it back ({@link #writes}). Each move is logged once, the way
 * back with how long it lasted and how many calls failed meanwhile, so an outage is two log lines, not one per message.
 *
 * <p>Waiting: {@link #waitingOut} runs a call again while it fails for an outage with nothing written, with
 * {@link Backoff} from {@link #FIRST_RETRY} up to {@link #MAX_RETRY}, for up to the store's outage wait
 * ({@code store.outage_wait_seconds}); then, or when the waiting thread is interrupted, the last failure is thrown. A
 * call that may have committed (the connection broke during the commit) is never run again.
 *
 * <p>Warnings (the disk nearly full) are kept beside the state and logged once when they appear and once when they go.
 */
public final class StoreOutage {
    /** How long a store call waits for a store that cannot write, unless configured ({@code store.outage_wait_seconds}). */
    public static final Duration DEFAULT_WAIT = Duration.ofSeconds(60);
    private static final Logger log = LoggerFactory.getLogger(StoreOutage.class);
    /** The first wait before a call that failed for an outage runs again. */
    static final Duration FIRST_RETRY = Duration.ofMillis(100);
    /** The longest wait between two runs of such a call: how late, at most, a waiting call sees the store back. */
    static final Duration MAX_RETRY = Duration.ofSeconds(2);

    private final String where;
    private final Duration wait;
    private volatile StoreHealth health = StoreHealth.WRITABLE;
    private long downSinceNanos; // guarded by this
    private long failedCalls; // guarded by this: calls that failed since the store went down

    /**
     * @param where what the log lines name (the database file, or {@code postgresql host:port/db})
     * @param wait  how long a call waits for the store to write again before it fails (zero: it fails at once)
     */
    public StoreOutage(String where, Duration wait) {
        this.where = where;
        this.wait = wait.isNegative() ? Duration.ZERO : wait;
    }

    /** The store's health now. */
    public StoreHealth health() {
        return health;
    }

    /** Whether writes fail for a reason of the store as a whole now. */
    public boolean down() {
        return !health.writable();
    }

    /** How long a call waits for the store to write again. */
    public Duration outageWait() {
        return wait;
    }

    /**
     * A call failed because the store cannot write: {@code reason} in a few words that name nothing of the installation,
     * {@code problem} the operator's version. The first such failure is logged.
     */
    public void cannotWrite(String reason, String problem) {
        synchronized (this) {
            failedCalls++;
            if (!health.writable()) {
                return;
            }
            downSinceNanos = System.nanoTime();
            health = new StoreHealth(false, reason, problem, Instant.now(), health.warning());
        }
        log.error("store - {}; new messages are not taken until it works again (platforms keep them and redeliver, the API answers "
                + "503) and running turns wait up to {} s for it", problem, wait.toSeconds());
    }

    /** A write succeeded: when the store was down, it is writable again (logged once, with how long it was down). */
    public void writes() {
        if (health.writable()) {
            return;
        }
        long downMs;
        long failed;
        String problem;
        synchronized (this) {
            if (health.writable()) {
                return;
            }
            downMs = (System.nanoTime() - downSinceNanos) / 1_000_000;
            failed = failedCalls;
            problem = health.problem();
            failedCalls = 0;
            health = new StoreHealth(true, null, null, null, health.warning());
        }
        log.warn("store - {} takes writes again after {} s ({} store call(s) failed meanwhile; it had failed with: {})", where,
                String.format(java.util.Locale.ROOT, "%.1f", downMs / 1000.0), failed, problem);
    }

    /** Sets or clears ({@code text} null) the warning while writes still work; logged when it appears and when it goes. */
    public void warning(String text) {
        String was;
        synchronized (this) {
            was = health.warning();
            if (java.util.Objects.equals(was, text)) {
                return;
            }
            health = health.withWarning(text);
        }
        if (text != null && was == null) {
            log.warn("store - {}", text);
        } else if (text == null) {
            log.info("store - {}: the warning is over ({})", where, was);
        }
    }

    /**
     * Runs {@code call}; while it fails for an outage with nothing written, runs it again after a backoff, for up to the
     * outage wait from now. The call's result, or its last failure.
     */
    public <T> T waitingOut(Supplier<T> call) {
        long deadline = System.nanoTime() + wait.toNanos();
        Backoff backoff = new Backoff(FIRST_RETRY, MAX_RETRY);
        while (true) {
            try {
                return call.get();
            } catch (StoreException e) {
                long left = deadline - System.nanoTime();
                if (!e.outage() || !e.retryable() || left <= 0) {
                    throw e;
                }
                long pause = Math.min(backoff.next().toNanos(), left);
                try {
                    Thread.sleep(Duration.ofNanos(pause));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt(); // the caller gives up waiting (a /stop, a drain): the call did not happen
                    throw e;
                }
            }
        }
    }

    @Override
    public String toString() {
        return "StoreOutage[" + where + ", " + (health.writable() ? "writable" : "down: " + health.problem()) + "]";
    }
}
