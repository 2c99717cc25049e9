package dev.herald.core.config;

import dev.herald.core.auth.AccessPolicy;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The keys every chat platform section shares, so access works the same everywhere:
 * <pre>
 * platforms:
 *   telegram:
 *     enabled: true
 *     allowed_users: ["123456789"]   # platform user ids; "*" = everyone
 *     allow_all_users: false         # true = anyone who finds the bot
 *     admins: ["123456789"]          # may also /restart and /sethome (admins are allowed users)
 *     home_channel: {chat_id: "-1001234567890", thread_id: "7", name: Ops}
 *     unauthorized_dm: pair          # pair | ignore
 * </pre>
 * A platform section record declares these six components (with {@link Doc}) and implements this
 * interface; the wiring turns it into an {@link AccessPolicy} and a home channel, and its
 * {@link Validated#validate} calls {@link #validateAccess}.
 */
public interface PlatformAccess {
    boolean enabled();

    List<String> allowedUsers();

    boolean allowAllUsers();

    List<String> admins();

    HomeChannelConfig homeChannel();

    UnauthorizedDm unauthorizedDm();

    /** The access rules of this platform for the core. */
    default AccessPolicy toAccessPolicy() {
        return new AccessPolicy(allowAllUsers(), clean(allowedUsers()), clean(admins()));
    }

    /** True when unknown users writing a direct message get a pairing code. */
    default boolean pairsUnknownUsers() {
        return unauthorizedDm() == UnauthorizedDm.PAIR && !allowAllUsers();
    }

    /** Checks the shared keys; a platform section calls this from its own validate. */
    static void validateAccess(PlatformAccess a, ConfigChecks check) {
        check.require(a.allowedUsers() != null && a.allowedUsers().stream().noneMatch(u -> u == null || u.isBlank()), "allowed_users",
                "must be a list of user ids without empty entries, e.g. [\"123456789\"]");
        check.require(a.admins() != null && a.admins().stream().noneMatch(u -> u == null || u.isBlank()), "admins",
                "must be a list of user ids without empty entries, e.g. [\"123456789\"]");
        check.require(a.unauthorizedDm() != null, "unauthorized_dm", "must be pair or ignore");
    }

    /** An unmodifiable copy of a configured id list; null entries stay, for {@link #validateAccess} to name. */
    static List<String> ids(List<String> given) {
        return given == null ? List.of() : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(given));
    }

    private static Set<String> clean(List<String> ids) {
        Set<String> out = new HashSet<>();
        if (ids != null) {
            for (String id : ids) {
                if (id != null && !id.isBlank()) {
                    out.add(id.strip());
                }
            }
        }
        return out;
    }
}
