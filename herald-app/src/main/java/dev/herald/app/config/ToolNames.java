package dev.herald.app.config;

import dev.herald.core.config.ClosestKey;


import dev.herald.agent.AgentConfig;

import dev.herald.core.config.ConfigChecks;
import dev.herald.agent.mcp.McpNames;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks the tool lists of {@code agent:} against what exists: every entry of {@code agent.tools} and
 * {@code agent.platform_tools.*} names a built-in tool, {@code mcp}, a tool of a configured MCP server
 * ({@code <server>__<tool>}) or a prefix pattern that matches one ({@code github__*}); every key of
 * {@code platform_tools} names a platform Herald has. A typo must not pass silently: {@code platform_tools.webhok: []}
 * would leave webhooks with every tool, and a mistyped tool is simply never offered.
 */
final class ToolNames {
    /** The built-in tools, {@code schedule} (built with the scheduled jobs it manages), {@code skill} (with the skills folder) and {@code memory}. */
    private static final List<String> BUILT_IN = java.util.stream.Stream.concat(BuiltinTools.NAMES.stream(),
            java.util.stream.Stream.of(dev.herald.agent.tool.ScheduleTool.NAME, dev.herald.agent.skill.SkillTool.NAME,
                    dev.herald.agent.memory.MemoryTool.NAME)).toList();

    private ToolNames() {
    }

    static void validate(AgentConfig agent, List<dev.herald.agent.mcp.McpServerSettings> servers, List<String> platforms, ConfigChecks check) {
        List<String> prefixes = servers.stream().filter(s -> s.name() != null).map(s -> s.name() + McpNames.SEPARATOR).toList();
        checkList(agent.tools(), "agent.tools", prefixes, check);
        for (Map.Entry<String, List<String>> e : agent.platformTools().entrySet()) {
            String path = "agent.platform_tools." + e.getKey();
            check.require(platforms.contains(e.getKey()), path, "is not a platform" + suggestion(e.getKey(), platforms)
                    + "; the platforms are " + String.join(", ", platforms));
            checkList(e.getValue(), path, prefixes, check);
        }
    }

    /** Checks one more tool list (a scheduled job's) as {@code agent.tools} is checked; {@code path} is its full key. */
    static void validateList(List<String> entries, String path, List<dev.herald.agent.mcp.McpServerSettings> servers, ConfigChecks check) {
        checkList(entries, path, servers.stream().filter(s -> s.name() != null).map(s -> s.name() + McpNames.SEPARATOR).toList(), check);
    }

    private static void checkList(List<String> entries, String path, List<String> prefixes, ConfigChecks check) {
        for (int i = 0; i < entries.size(); i++) {
            String entry = entries.get(i);
            check.require(entry != null && known(entry, prefixes), path + "[" + i + "]", "is \"" + entry + "\", which names no tool"
                    + suggestion(entry, known(prefixes)) + "; tools are " + String.join(", ", BUILT_IN) + ", " + ToolRegistry.ALL_MCP
                    + " (every MCP tool)" + (prefixes.isEmpty() ? ", and <server>__<tool> once mcp_servers has servers"
                            : ", or <server>__<tool> / <server>__* for the MCP servers " + String.join(", ", prefixes.stream()
                                    .map(p -> p.substring(0, p.length() - McpNames.SEPARATOR.length())).toList())));
        }
    }

    private static boolean known(String entry, List<String> prefixes) {
        if (entry.equals(ToolRegistry.ALL_MCP) || BUILT_IN.contains(entry)) {
            return true;
        }
        if (entry.endsWith("*")) {
            String p = entry.substring(0, entry.length() - 1);
            return BUILT_IN.stream().anyMatch(n -> n.startsWith(p))
                    || prefixes.stream().anyMatch(server -> server.startsWith(p) || p.startsWith(server));
        }
        return prefixes.stream().anyMatch(server -> entry.startsWith(server) && entry.length() > server.length());
    }

    private static List<String> known(List<String> prefixes) {
        List<String> all = new ArrayList<>(BUILT_IN);
        all.add(ToolRegistry.ALL_MCP);
        prefixes.forEach(p -> all.add(p + "*"));
        return all;
    }

    private static String suggestion(String typed, List<String> known) {
        return typed == null ? "" : ClosestKey.to(typed, known).map(k -> " (did you mean \"" + k + "\"?)").orElse("");
    }
}
