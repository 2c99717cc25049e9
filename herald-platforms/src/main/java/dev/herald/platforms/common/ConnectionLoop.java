package dev.herald.platforms.common;

import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * The thread that runs one adapter's connection loop (connect, converse, back off, connect again), started
 * once and stopped once; the loop itself (what to connect to, when to give up) stays with its platform.
 *
 * <p>Stopping sets {@link #stopping()}, which the loop checks between steps, runs the owner's
 * {@code closeFirst} (so the loop sees its connection end as a stop, not as a drop to recover from), then
 * interrupts the loop and waits for it, at most {@link #JOIN}. A loop that throws is a bug: it is logged
 * once and handed to {@code onCrash} as a message for the operator, and the adapter stays stopped until
 * Herald restarts.
 */
public final class ConnectionLoop {
    /** How long {@link #stop} waits for the loop to end. */
    static final Duration JOIN = Duration.ofSeconds(3);

    private final String threadName;
    private final String subject;
    private final Logger log;
    private final Consumer<String> onCrash;
    private volatile boolean stopping;
    private volatile Thread thread;

    /**
     * @param subject what the crash message names, e.g. {@code "discord - the gateway loop"}
     * @param log     the owner's logger, so its lines keep their name
     * @param onCrash gets the crash message after it was logged
     */
    public ConnectionLoop(String threadName, String subject, Logger log, Consumer<String> onCrash) {
        this.threadName = threadName;
        this.subject = subject;
        this.log = log;
        this.onCrash = onCrash;
    }

    /** Runs {@code loop} on a new virtual thread. */
    public void start(Runnable loop) {
        thread = Thread.ofVirtual().name(threadName).start(() -> guarded(loop));
    }

    /** True once {@link #stop} was called: the loop ends at its next check. */
    public boolean stopping() {
        return stopping;
    }

    /** Stops the loop: sets the flag, runs {@code closeFirst}, interrupts the loop and waits for it. Idempotent. */
    public void stop(Runnable closeFirst) {
        stopping = true;
        closeFirst.run();
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(JOIN);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Sleeps {@code wait} between two attempts; false when the loop should end instead (interrupted, or stopping). */
    public boolean pause(Duration wait) {
        try {
            Thread.sleep(wait);
            return !stopping;
        } catch (InterruptedException e) {
            return false;
        }
    }

    private void guarded(Runnable loop) {
        try {
            loop.run();
        } catch (RuntimeException | Error e) {
            String message = subject + " failed unexpectedly (" + e.getClass().getSimpleName()
                    + "); the adapter is stopped until Herald restarts";
            log.error(message, e);
            onCrash.accept(message);
        }
    }
}
