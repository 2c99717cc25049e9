package dev.herald.agent.mcp;

import java.util.HashSet;
import java.util.Set;

/**
 * How MCP tools are named for the model: {@code <server>__<tool>}, two underscores (a server name may not
 * contain them, so the server is always the part before the first {@code __}). OpenAI-compatible servers
 * accept only {@code [A-Za-z0-9_-]} and 64 characters in a function name, so other characters of the tool's
 * own name become {@code _} and the whole is cut to 64 (a numeric suffix keeps clipped names distinct).
 */
public final class McpNames {
    public static final String SEPARATOR = "__";
    private static final int MAX = 64;

    private McpNames() {
    }

    /** The exposed name of {@code tool} on {@code server}, distinct from the names in {@code taken} (which it joins). */
    static String exposed(String server, String tool, Set<String> taken) {
        String base = server + SEPARATOR + tool.replaceAll("[^A-Za-z0-9_-]", "_");
        String name = base.length() > MAX ? base.substring(0, MAX) : base;
        for (int n = 2; !taken.add(name); n++) {
            String suffix = "_" + n;
            name = (base.length() + suffix.length() > MAX ? base.substring(0, MAX - suffix.length()) : base) + suffix;
        }
        return name;
    }

    static Set<String> newTaken() {
        return new HashSet<>();
    }
}
