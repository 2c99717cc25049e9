package dev.herald.core.auth;

import dev.herald.core.session.SessionSource;

/**
 * Decides who may start a turn. Consulted on every path that starts one: an inbound message, a
 * queued message replayed after a restart, and an automatic resume (spec F2, invariant 5).
 * Implementations fail closed: an error means "not authorized".
 */
public interface Authorizer {

    boolean isAuthorized(SessionSource source);

    /** Whether the source's user may run admin commands such as /restart. */
    boolean isAdmin(SessionSource source);

    /**
     * What to tell a refused sender, if anything: for example a one-time pairing code in a direct
     * message. Called once per refused message; implementations rate-limit and never log codes.
     */
    default java.util.Optional<String> refusalReply(SessionSource source) {
        return java.util.Optional.empty();
    }
}
