package dev.herald.core.session;

import dev.herald.core.platform.Platform;
import java.util.Optional;

/**
 * A page of sessions for the admin page and {@code herald sessions}: optionally only one state, one
 * platform, or keys containing a text; newest activity first.
 *
 * @param state    which lanes: all, resume-pending, suspended or active (neither)
 * @param platform only this platform, or empty
 * @param contains only keys containing this text (case-insensitive), or empty
 * @param limit    at most this many (1..500)
 * @param offset   skip this many (for paging)
 */
public record SessionQuery(State state, Optional<Platform> platform, Optional<String> contains, int limit, int offset) {

    public enum State {
        ALL,
        RESUME_PENDING,
        SUSPENDED,
        ACTIVE
    }

    public SessionQuery {
        if (limit < 1 || limit > 500) {
            throw new IllegalArgumentException("limit must be 1..500, was " + limit);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        contains = contains.filter(c -> !c.isBlank());
    }

    public static SessionQuery all(int limit) {
        return new SessionQuery(State.ALL, Optional.empty(), Optional.empty(), limit, 0);
    }
}
