package dev.herald.app.config;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import dev.herald.agent.mcp.McpServerSettings;
import java.util.List;
import java.util.Map;

/**
 * One entry of {@code mcp_servers:}: an MCP server whose tools the agent may call, started as a process
 * ({@code command}) or reached over streamable HTTP ({@code url}). Values of {@code env} and
 * {@code headers} are secrets: they are never printed or logged.
 */
public record McpServerConfig(
        @Doc("short name; its tools appear as <name>__<tool>")
        String name,
        @Doc("program to start (stdio transport), an absolute path is safest")
        String command,
        @Doc("arguments for command")
        List<String> args,
        @Doc("environment for command (values are secrets)")
        Map<String, Secret> env,
        @Doc("streamable HTTP endpoint instead of a command")
        String url,
        @Doc("HTTP headers for url (values are secrets)")
        Map<String, Secret> headers,
        @Doc("only these of the server's tools; empty = all")
        List<String> allowedTools,
        @Doc("run its tools without asking for approval")
        boolean trusted,
        @Doc("seconds one tool call may take")
        int timeoutSeconds) implements Validated {

    public McpServerConfig {
        args = args == null ? List.of() : List.copyOf(args);
        env = env == null ? Map.of() : Map.copyOf(env);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        allowedTools = allowedTools == null ? List.of() : List.copyOf(allowedTools);
    }

    public static McpServerConfig defaults() {
        return new McpServerConfig(null, null, List.of(), Map.of(), null, Map.of(), List.of(), false,
                (int) McpServerSettings.DEFAULT_TIMEOUT.toSeconds());
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(name != null && name.matches("[A-Za-z0-9_-]{1,32}") && !name.contains("__"), "name",
                "must be 1-32 letters, digits, '-' or '_' without '__', was \"" + name + "\"");
        boolean hasCommand = command != null && !command.isBlank();
        boolean hasUrl = url != null && !url.isBlank();
        check.require(hasCommand != hasUrl, "command", "give either command (a process) or url (streamable HTTP), not both or neither");
        if (hasUrl) {
            check.require(ModelConfig.isHttpUrl(url), "url", "must be an http:// or https:// URL, was \"" + url + "\"");
        }
        check.require(timeoutSeconds >= 1, "timeout_seconds", "must be at least 1, was " + timeoutSeconds);
    }
}
