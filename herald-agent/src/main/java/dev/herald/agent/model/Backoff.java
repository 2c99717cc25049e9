package dev.herald.agent.model;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait between attempts: exponential from {@code initial}, capped at {@code max}, with
 * "equal jitter" (half fixed, half random) so that many turns failing together do not retry in step.
 * A server's {@code Retry-After} replaces the computed delay, up to {@code maxRetryAfter}; a longer
 * one fails the call at once instead of holding a turn for minutes.
 */
public record Backoff(Duration initial, Duration max, Duration maxRetryAfter) {
    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8), Duration.ofSeconds(60));

    public Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        if (initial.isNegative() || max.compareTo(initial) < 0 || maxRetryAfter.isNegative()) {
            throw new IllegalArgumentException("backoff needs 0 <= initial <= max and maxRetryAfter >= 0");
        }
    }

    /** The wait before retry number {@code retry} (1 for the first retry). */
    public Duration delay(int retry) {
        long base = initial.toMillis();
        long capped = Math.min(max.toMillis(), base << Math.min(Math.max(retry - 1, 0), 20));
        long half = capped / 2;
        return Duration.ofMillis(half + (half == 0 ? 0 : ThreadLocalRandom.current().nextLong(half + 1)));
    }
}
