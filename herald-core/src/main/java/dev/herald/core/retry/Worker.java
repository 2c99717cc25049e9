package dev.herald.core.retry;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One named background job on a virtual thread of its own: it runs a round every {@code interval}, or at
 * once when {@linkplain #wake woken}, until its owner {@linkplain #stop stops} it. A round that throws is
 * logged and the next one runs as planned. Stopping lets the current round finish and waits for the thread.
 */
public final class Worker {
    private static final Logger log = LoggerFactory.getLogger(Worker.class);
    private static final Object WAKE = new Object();
    private static final Object STOP = new Object();

    private final String name;
    private final Duration interval;
    private final Runnable round;
    private final LinkedBlockingQueue<Object> signals = new LinkedBlockingQueue<>();
    private Thread thread;
    private volatile boolean stopping;

    public Worker(String name, Duration interval, Runnable round) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(name + " - interval must be positive, was " + interval);
        }
        this.name = name;
        this.interval = interval;
        this.round = round;
    }

    public synchronized void start() {
        if (thread == null && !stopping) {
            thread = Thread.ofVirtual().name("herald-" + name).start(this::loop);
        }
    }

    /** Runs a round as soon as the current one (if any) is done. */
    public void wake() {
        signals.offer(WAKE);
    }

    /** Whether the owner asked it to stop (a round can check it to end early). */
    public boolean stopping() {
        return stopping;
    }

    /**
     * Ends the loop after the current round and waits up to {@code max} for the thread to end.
     *
     * @return true when the thread has ended (or never started)
     */
    public boolean stop(Duration max) {
        Thread t;
        synchronized (this) {
            stopping = true;
            t = thread;
        }
        signals.offer(STOP);
        if (t == null) {
            return true;
        }
        try {
            if (!t.join(max)) {
                log.warn("{} - still in a round {} ms after it was asked to stop; left to finish in the background", name, max.toMillis());
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    private void loop() {
        try {
            while (!stopping) {
                Object signal = signals.poll(interval.toMillis(), TimeUnit.MILLISECONDS);
                if (signal == STOP || stopping) {
                    return;
                }
                try {
                    round.run();
                } catch (RuntimeException e) {
                    log.warn("{} - a round failed: {}", name, e.toString());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
