package dev.herald.core.auth;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What DM pairing remembers for one platform: codes waiting for approval, users approved, when each
 * user last asked for a code, and failed approvals. Immutable; {@link Pairing} computes the next state
 * and a {@link PairingStore} keeps it.
 *
 * @param pending        codes issued and not yet approved (expired ones are dropped on the next change)
 * @param approved       users admitted through pairing
 * @param lastRequest    when each user id was last issued a code (the rate limit)
 * @param failedAttempts approvals with an unknown or expired code since the last success or lockout
 * @param lockedUntil    approvals and new codes are refused until then; null when not locked
 */
public record PairingState(
        List<Pending> pending, List<Approved> approved, Map<String, Instant> lastRequest, int failedAttempts, Instant lockedUntil) {

    /** A code waiting for the operator. The code is a credential: never log it. */
    public record Pending(String code, String userId, String userName, String chatId, Instant issuedAt) {
        public Pending {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(userId, "userId");
            Objects.requireNonNull(issuedAt, "issuedAt");
        }

        @Override
        public String toString() {
            return "Pending[user " + userId + ", issued " + issuedAt + "]";
        }
    }

    /** A user admitted through pairing. */
    public record Approved(String userId, String userName, Instant approvedAt) {
        public Approved {
            Objects.requireNonNull(userId, "userId");
            Objects.requireNonNull(approvedAt, "approvedAt");
        }
    }

    public PairingState {
        pending = pending == null ? List.of() : List.copyOf(pending);
        approved = approved == null ? List.of() : List.copyOf(approved);
        lastRequest = lastRequest == null ? Map.of() : Map.copyOf(lastRequest);
    }

    public static PairingState empty() {
        return new PairingState(List.of(), List.of(), Map.of(), 0, null);
    }

    public boolean isApproved(String userId) {
        return approved.stream().anyMatch(a -> a.userId().equals(userId));
    }

    PairingState withPending(List<Pending> p) {
        return new PairingState(p, approved, lastRequest, failedAttempts, lockedUntil);
    }

    PairingState withIssued(Pending p, List<Pending> alive) {
        List<Pending> next = new ArrayList<>(alive);
        next.add(p);
        Map<String, Instant> requests = new HashMap<>(lastRequest);
        requests.put(p.userId(), p.issuedAt());
        return new PairingState(next, approved, requests, failedAttempts, lockedUntil);
    }

    PairingState withApproved(Pending p, Instant at, List<Pending> alive) {
        List<Pending> rest = new ArrayList<>(alive);
        rest.removeIf(x -> x.userId().equals(p.userId()));
        List<Approved> users = new ArrayList<>(approved);
        users.removeIf(a -> a.userId().equals(p.userId()));
        users.add(new Approved(p.userId(), p.userName(), at));
        return new PairingState(rest, users, lastRequest, 0, null);
    }

    PairingState withFailure(List<Pending> alive, int failures, Instant lockUntil) {
        return new PairingState(alive, approved, lastRequest, failures, lockUntil);
    }

    PairingState without(String userId) {
        List<Approved> users = new ArrayList<>(approved);
        users.removeIf(a -> a.userId().equals(userId));
        List<Pending> rest = new ArrayList<>(pending);
        rest.removeIf(p -> p.userId().equals(userId));
        return new PairingState(rest, users, lastRequest, failedAttempts, lockedUntil);
    }
}
