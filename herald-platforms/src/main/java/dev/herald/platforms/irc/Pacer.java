package dev.herald.platforms.irc;

import java.time.Duration;

/**
 * Flood control for the lines Herald sends: a token bucket of {@code burst} lines, one more every {@code pace}. A burst
 * goes out at once, then lines leave at a steady pace, so a long answer never trips the server's flood limit (which
 * would drop the connection with "Excess Flood"). Protocol replies (PONG) do not pass through here.
 *
 * <p>Thread-safe: sends from several turns take their lines one after another.
 */
final class Pacer {
    private final int burst;
    private final long paceNanos;
    private double tokens;
    private long refilledAt = System.nanoTime();

    Pacer(int burst, Duration pace) {
        this.burst = burst;
        this.paceNanos = Math.max(1, pace.toNanos());
        this.tokens = burst;
    }

    /** Waits until one more line may go out, and takes its place. */
    void acquire() throws InterruptedException {
        while (true) {
            long sleepNanos;
            synchronized (this) {
                long now = System.nanoTime();
                tokens = Math.min(burst, tokens + (double) (now - refilledAt) / paceNanos);
                refilledAt = now;
                if (tokens >= 1) {
                    tokens -= 1;
                    return;
                }
                sleepNanos = (long) ((1 - tokens) * paceNanos) + 1;
            }
            Thread.sleep(Duration.ofNanos(sleepNanos));
        }
    }
}
