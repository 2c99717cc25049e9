package dev.herald.core.auth;

import java.util.Set;

/**
 * Who may talk to the agent on one platform.
 *
 * @param allowAllUsers everyone on the platform may (for platforms that authenticate callers
 *                      themselves, such as the API server's bearer key)
 * @param allowedUsers  platform user ids that may; {@code *} in the set means everyone
 * @param admins        platform user ids that may also run admin commands (/restart, /sethome)
 */
public record AccessPolicy(boolean allowAllUsers, Set<String> allowedUsers, Set<String> admins) {
    public AccessPolicy {
        allowedUsers = allowedUsers == null ? Set.of() : Set.copyOf(allowedUsers);
        admins = admins == null ? Set.of() : Set.copyOf(admins);
    }

    public static AccessPolicy allowAll() {
        return new AccessPolicy(true, Set.of(), Set.of());
    }

    public static AccessPolicy users(Set<String> users) {
        return new AccessPolicy(false, users, Set.of());
    }
}
