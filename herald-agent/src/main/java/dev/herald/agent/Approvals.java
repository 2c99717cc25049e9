package dev.herald.agent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The "approve always" answers: per session scope (the lane's key, else the session id), the tools that
 * no longer ask. Kept in memory: a restart forgets them, so the first dangerous call after a restart asks
 * again (deliberate: an approval is given to a running process, not stored as policy).
 */
final class Approvals {
    private final ConcurrentHashMap<String, Set<String>> always = new ConcurrentHashMap<>();

    boolean alwaysAllowed(String scope, String tool) {
        Set<String> tools = always.get(scope);
        return tools != null && tools.contains(tool);
    }

    void remember(String scope, String tool) {
        always.computeIfAbsent(scope, k -> ConcurrentHashMap.newKeySet()).add(tool);
    }
}
