package dev.herald.web.access;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brute-force protection for the key (API bearer keys, the pages' login, {@code /metrics} bearers): a
 * token bucket per client ({@link ClientAddress#bucket}) that only wrong keys drain. A client starts with
 * {@value #BURST} attempts and gets one back every {@link #REFILL}; with none left, every request that
 * presents a key is answered 429 with {@code Retry-After} before the key is even compared, so the answer
 * says nothing about the key. Requests that present no key, or a valid session cookie, are not affected.
 *
 * <p>Every wrong key is logged with the client and the route, never with the text presented; refusals
 * are summed up at most once a minute per client. One instance per listener ({@code WebServer}), shared
 * by the API and the pages, so both count against the same budget. At most
 * {@value ThrottledLog#MAX_SUBJECTS} clients are tracked (the least recently failed are forgotten first).
 */
public final class AuthThrottle {
    private static final Logger log = LoggerFactory.getLogger("web");
    /** Wrong keys a client may present in a row before it is throttled. */
    public static final int BURST = 10;
    /** How long it takes a throttled client to earn one more attempt (10 a minute). */
    public static final Duration REFILL = Duration.ofSeconds(6);

    private final LongSupplier nanos;
    private final long refillNanos = REFILL.toNanos();
    private final Map<String, Bucket> buckets = new LinkedHashMap<>(16, 0.75f, true);
    private final ThrottledLog refusals = new ThrottledLog(log, TimeUnit.MINUTES.toNanos(1));

    public AuthThrottle() {
        this(System::nanoTime);
    }

    AuthThrottle(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /**
     * Zero when {@code client} may present a key now; else how long until it may (at least one second).
     * A throttled request is counted for the summary line ({@code what}: the method and path).
     */
    public Duration blockedFor(String client, String what) {
        long now = nanos.getAsLong();
        double tokens;
        synchronized (this) {
            Bucket b = buckets.get(client);
            if (b == null) {
                return Duration.ZERO;
            }
            tokens = b.refill(now, refillNanos);
        }
        if (tokens >= 1) {
            return Duration.ZERO;
        }
        long waitNanos = (long) Math.ceil((1 - tokens) * refillNanos);
        Duration wait = Duration.ofSeconds(Math.max(1, (waitNanos + 999_999_999) / 1_000_000_000));
        refusals.event(client, now, n -> "web - " + n + " key attempt(s) from " + client + " answered 429 (more than " + BURST
                + " wrong keys; one more allowed every " + REFILL.toSeconds() + " s), last: " + what);
        return wait;
    }

    /** Counts one wrong key from {@code client} and logs it (the client and the route, never the key). */
    public void failed(String client, String what) {
        long now = nanos.getAsLong();
        double left;
        synchronized (this) {
            Bucket b = buckets.get(client);
            if (b == null) {
                evictIfFull();
                b = new Bucket(BURST, now);
                buckets.put(client, b);
            }
            left = Math.max(0, b.refill(now, refillNanos) - 1);
            b.tokens = left;
        }
        int whole = (int) Math.floor(left);
        log.info("web - wrong key from {} on {} ({})", client, what,
                whole > 0 ? whole + " more attempt(s) allowed now" : "no attempts left; one more every " + REFILL.toSeconds() + " s");
    }

    /** Attempts left (fractional while refilling) and when they were last counted; guarded by the throttle's lock. */
    private static final class Bucket {
        double tokens;
        long at;

        Bucket(double tokens, long at) {
            this.tokens = tokens;
            this.at = at;
        }

        double refill(long now, long refillNanos) {
            tokens = Math.min(BURST, tokens + (now - at) / (double) refillNanos);
            at = now;
            return tokens;
        }
    }

    private void evictIfFull() {
        if (buckets.size() < ThrottledLog.MAX_SUBJECTS) {
            return;
        }
        Iterator<Bucket> it = buckets.values().iterator();
        it.next();
        it.remove();
    }
}
