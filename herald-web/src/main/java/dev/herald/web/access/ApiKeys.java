package dev.herald.web.access;

import dev.herald.core.account.Account;
import dev.herald.core.account.Accounts;
import dev.herald.core.account.ApiKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The API keys of web accounts: {@code hk_<id>_<secret>}, 32 random bytes of secret, shown once when made. The store
 * keeps the key's SHA-256 (a hash of a high-entropy key needs no salt or stretching) and its public id; a presented
 * key is found by its hash. A key works while it is not revoked and its account is enabled, and decides the request's
 * user ({@link WebUser}).
 *
 * <p>Use is counted per key: in {@code /metrics} as {@code herald_api_key_requests_total{key, user}} at once, and in
 * the store (the admin page's figures) in batches: a request that finds the last write {@value #FLUSH_SECONDS} s old
 * or more writes what was counted since, so the store gets at most one write per key every few seconds.
 */
public final class ApiKeys {
    /** Every key starts so: a bearer that does is looked up here, any other is the configured key. */
    public static final String PREFIX = "hk_";
    static final int FLUSH_SECONDS = 5;
    private static final Pattern SHAPE = Pattern.compile("hk_[a-z0-9]{10}_[A-Za-z0-9_-]{43}");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    private static final int MAX_LABEL = 80;

    private final Accounts accounts;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Map<String, AtomicLong> unsaved = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final AtomicLong lastFlush = new AtomicLong();

    /** A key made now: the stored record and the key itself (to show once). */
    public record Made(ApiKey key, String secret) {
        @Override
        public String toString() {
            return "Made[" + key.id() + "]"; // never the secret
        }
    }

    /** A presented key that works: its record and its account. */
    public record Resolved(ApiKey key, Account account) {
    }

    public ApiKeys(Accounts accounts, Clock clock, MeterRegistry registry) {
        this.accounts = Objects.requireNonNull(accounts, "accounts");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.registry = registry;
    }

    public Accounts accounts() {
        return accounts;
    }

    /** Makes a key for {@code owner} with a label (up to {@value #MAX_LABEL} characters, one line). */
    public Made create(String owner, String label) {
        String clean = label == null ? "" : label.strip().lines().findFirst().orElse("");
        if (clean.length() > MAX_LABEL) {
            throw new IllegalArgumentException("a key's label is at most " + MAX_LABEL + " characters, this one has " + clean.length());
        }
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            id.append(ID_ALPHABET.charAt(RANDOM.nextInt(ID_ALPHABET.length())));
        }
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String key = PREFIX + id + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        ApiKey record = new ApiKey(id.toString(), owner, clean, hash(key), clock.instant(), null, null, 0);
        accounts.addKey(record);
        return new Made(record, key);
    }

    /** Whether {@code bearer} looks like an account's key (it is then never compared with the configured key). */
    public static boolean looksLikeKey(String bearer) {
        return bearer != null && bearer.startsWith(PREFIX);
    }

    /** The working key {@code presented} is, counting one use; empty for a wrong, revoked or disabled account's key. */
    public Optional<Resolved> resolve(String presented) {
        if (presented == null || !SHAPE.matcher(presented.strip()).matches()) {
            return Optional.empty();
        }
        Optional<ApiKey> key = accounts.keyByHash(hash(presented.strip())).filter(k -> !k.revoked());
        Optional<Resolved> resolved = key.flatMap(k -> accounts.find(k.owner()).filter(a -> !a.disabled()).map(a -> new Resolved(k, a)));
        resolved.ifPresent(this::used);
        return resolved;
    }

    private void used(Resolved r) {
        unsaved.computeIfAbsent(r.key().id(), id -> new AtomicLong()).incrementAndGet();
        if (registry != null) {
            counters.computeIfAbsent(r.key().id(), id -> Counter.builder("herald.api_key.requests")
                    .description("API requests made with each account's API key").tag("key", id).tag("user", r.account().name())
                    .register(registry)).increment();
        }
        long now = clock.millis();
        long last = lastFlush.get();
        if (now - last >= FLUSH_SECONDS * 1000L && lastFlush.compareAndSet(last, now)) {
            flush();
        }
    }

    /** Writes the uses counted since the last write (the admin page calls it before it shows them). */
    public void flush() {
        Instant at = clock.instant();
        for (Map.Entry<String, AtomicLong> e : unsaved.entrySet()) {
            long n = e.getValue().getAndSet(0);
            if (n > 0) {
                accounts.keyUsed(e.getKey(), n, at);
            }
        }
    }

    static String hash(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
