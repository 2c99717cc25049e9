package dev.herald.core.platform;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Reconnection delays for every adapter, in one place: exponential from {@code initial} to {@code max},
 * with full jitter so many adapters (or many Herald nodes) do not reconnect in step. A platform's own
 * retry-after, when it gives one, wins.
 */
public final class Backoff {
    private final Duration initial;
    private final Duration max;
    private int attempt;

    public Backoff(Duration initial, Duration max) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, was " + initial + " and " + max);
        }
        this.initial = initial;
        this.max = max;
    }

    /** One second growing to one minute. */
    public static Backoff reconnect() {
        return new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1));
    }

    /** The delay before the next attempt; each call counts one more failure. */
    public Duration next() {
        long cap = Math.min(max.toMillis(), initial.toMillis() << Math.min(attempt, 20));
        attempt++;
        long half = cap / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1));
    }

    /** The delay before the next attempt, honouring the platform's retry-after when given. */
    public Duration next(Duration retryAfter) {
        Duration d = next();
        return retryAfter != null && retryAfter.compareTo(d) > 0 ? retryAfter : d;
    }

    /** Failures since the last success. */
    public int attempts() {
        return attempt;
    }

    /** A connection succeeded: start again from {@code initial}. */
    public void reset() {
        attempt = 0;
    }
}
