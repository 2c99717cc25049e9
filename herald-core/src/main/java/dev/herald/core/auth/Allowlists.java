package dev.herald.core.auth;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The configured access rules: one {@link AccessPolicy} per platform, a global allow-all switch, and
 * users admitted at run time (DM pairing). A platform without a policy admits nobody. Admission order:
 * global allow-all, the platform's allow-all, its allowlist ({@code *} admits all), then paired users.
 */
public final class Allowlists implements Authorizer {
    private final Map<Platform, AccessPolicy> policies;
    private final boolean globalAllowAll;
    private final Supplier<Map<Platform, Set<String>>> paired;

    public Allowlists(Map<Platform, AccessPolicy> policies, boolean globalAllowAll) {
        this(policies, globalAllowAll, Map::of);
    }

    /**
     * @param paired users admitted through pairing, read at every decision so that approvals and
     *               revocations apply at once
     */
    public Allowlists(Map<Platform, AccessPolicy> policies, boolean globalAllowAll, Supplier<Map<Platform, Set<String>>> paired) {
        this.policies = Map.copyOf(new ConcurrentHashMap<>(policies));
        this.globalAllowAll = globalAllowAll;
        this.paired = paired;
    }

    @Override
    public boolean isAuthorized(SessionSource source) {
        if (globalAllowAll) {
            return true;
        }
        AccessPolicy p = policies.get(source.platform());
        if (p == null) {
            return isPaired(source);
        }
        if (p.allowAllUsers() || p.allowedUsers().contains("*")) {
            return true;
        }
        String user = source.userId();
        if (user != null && (p.allowedUsers().contains(user) || p.admins().contains(user))) {
            return true;
        }
        return isPaired(source);
    }

    @Override
    public boolean isAdmin(SessionSource source) {
        AccessPolicy p = policies.get(source.platform());
        return p != null && source.userId() != null && p.admins().contains(source.userId());
    }

    private boolean isPaired(SessionSource source) {
        if (source.userId() == null) {
            return false;
        }
        try {
            Set<String> users = paired.get().get(source.platform());
            return users != null && users.contains(source.userId());
        } catch (RuntimeException e) {
            return false;
        }
    }
}
