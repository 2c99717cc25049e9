package dev.herald.core.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before trying again, in one place for every retry in Herald: the outbox's sends, redelivery,
 * platform reconnects, the model client and MCP server restarts.
 *
 * <p>The wait before retry {@code n} (1 for the first) is {@code initial * 2^(n-1)}, at most {@code max}. With jitter
 * it is "equal jitter": half of that fixed, half random, so many clients (or nodes) failing together do not retry
 * in step. A server's retry-after is honoured: {@link #wait(int, Duration)} takes it in place of the computed delay,
 * unless it is longer than {@code maxRetryAfter}, in which case waiting is not worth it and the caller gives up
 * (a model call does not hold a turn for minutes; a reply is kept for redelivery instead).
 *
 * <p>{@link #delay} and {@link #wait} are pure and safe to share. A reconnect loop that owns an instance also uses
 * it as its counter: {@link #next()} counts one more failure, {@link #reset()} starts again after a success.
 */
public final class Backoff {
    private static final Duration FOREVER = Duration.ofDays(365);

    private final Duration initial;
    private final Duration max;
    private final boolean jitter;
    private final Duration maxRetryAfter;
    private int attempt;

    private Backoff(Duration initial, Duration max, boolean jitter, Duration maxRetryAfter) {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        if (initial.isNegative() || max.compareTo(initial) < 0 || maxRetryAfter.isNegative()) {
            throw new IllegalArgumentException("backoff needs 0 <= initial <= max and maxRetryAfter >= 0, was " + initial + ", " + max
                    + " and " + maxRetryAfter);
        }
        this.initial = initial;
        this.max = max;
        this.jitter = jitter;
        this.maxRetryAfter = maxRetryAfter;
    }

    /** Jittered, from {@code initial} to {@code max}; a retry-after is honoured however long (reconnect loops). */
    public Backoff(Duration initial, Duration max) {
        this(initial, max, true, FOREVER);
    }

    /** Jittered; a retry-after longer than {@code maxRetryAfter} means give up. */
    public static Backoff jittered(Duration initial, Duration max, Duration maxRetryAfter) {
        return new Backoff(initial, max, true, maxRetryAfter);
    }

    /** Without jitter: exactly {@code initial * 2^(n-1)}, at most {@code max} (schedules a test can predict). */
    public static Backoff exponential(Duration initial, Duration max) {
        return new Backoff(initial, max, false, FOREVER);
    }

    /** This policy, giving up on a retry-after longer than {@code limit}; a fresh counter. */
    public Backoff withMaxRetryAfter(Duration limit) {
        return new Backoff(initial, max, jitter, limit);
    }

    /** One second growing to one minute, jittered: a platform connection's reconnects. */
    public static Backoff reconnect() {
        return new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1));
    }

    /** The wait before retry {@code n} (1 for the first retry). */
    public Duration delay(int n) {
        long cap = Math.min(max.toMillis(), initial.toMillis() << Math.min(Math.max(n - 1, 0), 30));
        if (cap < 0) {
            cap = max.toMillis();
        }
        if (!jitter) {
            return Duration.ofMillis(cap);
        }
        long half = cap / 2;
        return Duration.ofMillis(half + (half == 0 ? 0 : ThreadLocalRandom.current().nextLong(half + 1)));
    }

    /**
     * The wait before retry {@code n} when the server said {@code retryAfter} (null when it did not): the server's
     * word, else {@link #delay}; empty when the server asks for longer than this backoff accepts (give up).
     */
    public Optional<Duration> wait(int n, Duration retryAfter) {
        if (retryAfter == null) {
            return Optional.of(delay(n));
        }
        return retryAfter.compareTo(maxRetryAfter) > 0 ? Optional.empty() : Optional.of(retryAfter);
    }

    /** The longest retry-after worth waiting for. */
    public Duration maxRetryAfter() {
        return maxRetryAfter;
    }

    /** The delay before the next attempt of the loop that owns this instance; each call counts one more failure. */
    public Duration next() {
        return delay(++attempt);
    }

    /** {@link #next()}, or the platform's retry-after when that is longer. */
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
