package dev.herald.core.account;

import java.time.Instant;
import java.util.Objects;

/**
 * One API key of an account, as stored: its public id (shown in lists, never enough to use it), the SHA-256 of the
 * key (the key itself is shown once, when made, and never stored), its owner, a label, and its use.
 */
public record ApiKey(String id, String owner, String label, String keyHash, Instant createdAt, Instant revokedAt, Instant lastUsedAt,
        long uses) {
    public ApiKey {
        Objects.requireNonNull(id, "id");
        Account.checkName(owner);
        Objects.requireNonNull(keyHash, "keyHash");
        Objects.requireNonNull(createdAt, "createdAt");
        label = label == null ? "" : label;
    }

    public boolean revoked() {
        return revokedAt != null;
    }
}
