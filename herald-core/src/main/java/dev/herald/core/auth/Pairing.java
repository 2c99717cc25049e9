package dev.herald.core.auth;

import dev.herald.core.platform.Platform;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DM pairing: an unknown user who writes to the bot in a direct message gets a one-time code; an
 * operator admits them with {@code herald pairing approve <platform> <code>}.
 *
 * <p>Rules (the reference's constants): codes are {@value #CODE_LENGTH} characters from
 * {@value #ALPHABET} (no 0/O, 1/I), live one hour, one code per user per ten minutes, at most
 * {@value #MAX_PENDING_PER_PLATFORM} waiting per platform; {@value #MAX_FAILED_ATTEMPTS} failed approvals
 * on a platform lock it (no approvals, no new codes) for an hour.
 *
 * <p>Codes are credentials: no log line, exception or {@code toString()} here contains one. Every change
 * is one {@link PairingStore#update}, so the gateway issuing codes and an operator approving them from
 * another process never lose each other's writes; approvals apply to the running gateway at once because
 * {@link #isApproved} reads the store at decision time.
 */
public final class Pairing {
    public static final String ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    public static final int CODE_LENGTH = 8;
    public static final Duration CODE_TTL = Duration.ofHours(1);
    public static final Duration RATE_LIMIT = Duration.ofMinutes(10);
    public static final Duration LOCKOUT = Duration.ofHours(1);
    public static final int MAX_FAILED_ATTEMPTS = 5;
    public static final int MAX_PENDING_PER_PLATFORM = 3;

    private static final Logger log = LoggerFactory.getLogger(Pairing.class);

    /** What an approval did. */
    public enum Result {
        APPROVED,
        /** No waiting code matches (never issued, already used, or revoked). */
        UNKNOWN_CODE,
        /** The code was issued but is older than {@link #CODE_TTL}. */
        EXPIRED,
        /** Too many failed approvals on this platform; try again after {@code lockedUntil}. */
        LOCKED_OUT
    }

    /**
     * The outcome of {@link #approve}.
     *
     * @param userId      the admitted user (APPROVED only), else null
     * @param userName    their display name when known, else null
     * @param lockedUntil when a lockout ends (LOCKED_OUT, or a failure that started one), else null
     */
    public record Approval(Result result, String userId, String userName, Instant lockedUntil) {
        public boolean approved() {
            return result == Result.APPROVED;
        }
    }

    private final PairingStore store;
    private final Clock clock;
    private final SecureRandom random;

    public Pairing(PairingStore store, Clock clock) {
        this(store, clock, new SecureRandom());
    }

    Pairing(PairingStore store, Clock clock, SecureRandom random) {
        this.store = store;
        this.clock = clock;
        this.random = random;
    }

    /**
     * Issues a code for {@code userId}, or nothing when the user asked less than {@link #RATE_LIMIT} ago,
     * the platform already has {@link #MAX_PENDING_PER_PLATFORM} codes waiting, or it is locked out.
     * The returned code goes to the user only; never log it.
     */
    public Optional<String> request(Platform platform, String userId, String userName, String chatId) {
        if (userId == null || userId.isBlank()) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        AtomicReference<String> issued = new AtomicReference<>();
        AtomicReference<String> refusal = new AtomicReference<>();
        PairingState after = store.update(platform, s -> {
            issued.set(null);
            List<PairingState.Pending> alive = alive(s, now);
            alive.removeIf(p -> p.userId().equals(userId));
            Instant last = s.lastRequest().get(userId);
            if (s.lockedUntil() != null && now.isBefore(s.lockedUntil())) {
                refusal.set("pairing is locked until " + s.lockedUntil() + " after " + MAX_FAILED_ATTEMPTS + " failed approvals");
                return s;
            }
            if (last != null && now.isBefore(last.plus(RATE_LIMIT))) {
                refusal.set("a code was issued " + Duration.between(last, now).toSeconds() + " s ago (one per "
                        + RATE_LIMIT.toMinutes() + " min)");
                return s;
            }
            if (alive.size() >= MAX_PENDING_PER_PLATFORM) {
                refusal.set(alive.size() + " codes are already waiting (max " + MAX_PENDING_PER_PLATFORM + ")");
                return s;
            }
            String code = newCode(alive);
            issued.set(code);
            return pruneRequests(s.withIssued(new PairingState.Pending(code, userId, userName, chatId, now), alive), now);
        });
        if (issued.get() == null) {
            log.info("{} - no pairing code for user {}: {}", platform, userId, refusal.get());
            return Optional.empty();
        }
        log.info("{} - pairing code issued to user {} in chat {} (expires in {} min; {} waiting)", platform, userId, chatId,
                CODE_TTL.toMinutes(), after.pending().size());
        return Optional.of(issued.get());
    }

    /** Admits the user a waiting {@code code} was issued to. Case and surrounding spaces are ignored. */
    public Approval approve(Platform platform, String code) {
        String wanted = code == null ? "" : code.strip().toUpperCase(Locale.ROOT);
        Instant now = clock.instant();
        AtomicReference<Approval> outcome = new AtomicReference<>();
        store.update(platform, s -> {
            if (s.lockedUntil() != null && now.isBefore(s.lockedUntil())) {
                outcome.set(new Approval(Result.LOCKED_OUT, null, null, s.lockedUntil()));
                return s;
            }
            List<PairingState.Pending> alive = alive(s, now);
            Optional<PairingState.Pending> match = alive.stream().filter(p -> p.code().equals(wanted)).findFirst();
            if (match.isPresent()) {
                PairingState.Pending p = match.get();
                outcome.set(new Approval(Result.APPROVED, p.userId(), p.userName(), null));
                return s.withApproved(p, now, alive);
            }
            boolean expired = s.pending().stream().anyMatch(p -> p.code().equals(wanted));
            int failures = s.failedAttempts() + 1;
            Instant lock = failures >= MAX_FAILED_ATTEMPTS ? now.plus(LOCKOUT) : null;
            outcome.set(new Approval(expired ? Result.EXPIRED : Result.UNKNOWN_CODE, null, null, lock));
            return s.withFailure(alive, lock == null ? failures : 0, lock);
        });
        Approval a = outcome.get();
        switch (a.result()) {
            case APPROVED -> log.info("{} - pairing approved: user {} may now talk to the agent", platform, a.userId());
            case LOCKED_OUT -> log.warn("{} - pairing approval refused: locked until {} after {} failed approvals", platform,
                    a.lockedUntil(), MAX_FAILED_ATTEMPTS);
            default -> log.warn("{} - pairing approval failed ({}){}", platform, a.result().name().toLowerCase(Locale.ROOT).replace('_', ' '),
                    a.lockedUntil() == null ? "" : "; " + MAX_FAILED_ATTEMPTS + " failures, pairing locked until " + a.lockedUntil());
        }
        return a;
    }

    /** Removes a paired user (and any code waiting for them); false when they were not paired. */
    public boolean revoke(Platform platform, String userId) {
        AtomicReference<Boolean> was = new AtomicReference<>(false);
        store.update(platform, s -> {
            was.set(s.isApproved(userId));
            return s.without(userId);
        });
        if (was.get()) {
            log.info("{} - pairing revoked for user {}", platform, userId);
        }
        return was.get();
    }

    /** True when {@code userId} was approved on {@code platform}. Fails closed: a store error means no. */
    public boolean isApproved(Platform platform, String userId) {
        if (userId == null) {
            return false;
        }
        try {
            return store.read(platform).isApproved(userId);
        } catch (RuntimeException e) {
            log.warn("{} - pairing store unreadable, treating user {} as not paired: {}", platform, userId, e.getMessage());
            return false;
        }
    }

    /** The users approved on {@code platform}. */
    public Set<String> approvedUsers(Platform platform) {
        return store.read(platform).approved().stream().map(PairingState.Approved::userId).collect(Collectors.toUnmodifiableSet());
    }

    /** The platform's state with expired codes left out (for {@code herald pairing list}). */
    public PairingState snapshot(Platform platform) {
        PairingState s = store.read(platform);
        return s.withPending(alive(s, clock.instant()));
    }

    private static List<PairingState.Pending> alive(PairingState s, Instant now) {
        List<PairingState.Pending> out = new ArrayList<>();
        for (PairingState.Pending p : s.pending()) {
            if (now.isBefore(p.issuedAt().plus(CODE_TTL))) {
                out.add(p);
            }
        }
        return out;
    }

    private static PairingState pruneRequests(PairingState s, Instant now) {
        Map<String, Instant> kept = new HashMap<>();
        s.lastRequest().forEach((user, at) -> {
            if (now.isBefore(at.plus(RATE_LIMIT))) {
                kept.put(user, at);
            }
        });
        return new PairingState(s.pending(), s.approved(), kept, s.failedAttempts(), s.lockedUntil());
    }

    private String newCode(List<PairingState.Pending> taken) {
        while (true) {
            StringBuilder b = new StringBuilder(CODE_LENGTH);
            for (int i = 0; i < CODE_LENGTH; i++) {
                b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
            String code = b.toString();
            if (taken.stream().noneMatch(p -> p.code().equals(code))) {
                return code;
            }
        }
    }
}
