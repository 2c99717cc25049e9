package dev.herald.core.account;

import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One person's web account: a name, a role, a password hash (an encoded Argon2id string; never the password) and
 * whether it is disabled. {@code sessionEpoch} grows whenever every session of the account must end (disabled,
 * password reset, "sign out everywhere"): a session token names the epoch it was issued in and dies when it moves.
 */
public record Account(String name, Role role, String passwordHash, boolean disabled, Instant createdAt, long sessionEpoch) {
    /** Account names: 1-32 lower-case letters, digits, '_' or '-' (they appear in tokens, logs and URLs unescaped). */
    public static final Pattern NAME = Pattern.compile("[a-z0-9_-]{1,32}");

    public Account {
        checkName(name);
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(passwordHash, "passwordHash");
        Objects.requireNonNull(createdAt, "createdAt");
    }

    /** Refuses a name that is not an account name, saying what a name may hold. */
    public static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an account name is 1-32 lower-case letters, digits, '_' or '-'"
                    + (name == null ? "" : ", was '" + (name.length() > 40 ? name.substring(0, 40) + "..." : name) + "'"));
        }
        return name;
    }

    /**
     * How the password hash of an invited account starts, one that no password matches: {@code invite$<SHA-256 of the
     * invitation code, hex>$<expiry, epoch seconds>}. The invited person's first password replaces it.
     */
    public static final String INVITED = "invite$";

    public boolean admin() {
        return role == Role.ADMIN;
    }

    /** Whether the account waits for its invitation to be taken (it has no password yet and cannot sign in). */
    public boolean invited() {
        return passwordHash.startsWith(INVITED);
    }
}
