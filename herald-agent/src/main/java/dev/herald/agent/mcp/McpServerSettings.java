package dev.herald.agent.mcp;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One {@code mcp_servers:} entry: a local server started as a process speaking MCP on stdio, or a remote one
 * reached over streamable HTTP. The configuration loader binds the entry straight into this record and checks it with
 * {@link #validate(ConfigChecks)}; {@link McpTools} checks a record built in code the same way. Values of {@code env}
 * and {@code headers} are {@link Secret}s (they usually hold tokens): never printed or logged, revealed only to the
 * process or the request that needs them.
 *
 * @param name           the prefix of the server's tools ({@code <name>__<tool>})
 * @param command        the program of a stdio server; null for HTTP
 * @param args           its arguments
 * @param env            extra environment for the process; it otherwise gets only HOME, LOGNAME, PATH, SHELL, TERM and
 *                       USER, never Herald's own environment
 * @param url            the endpoint of a streamable HTTP server; null for stdio
 * @param headers        extra HTTP headers (such as Authorization) for an HTTP server
 * @param allowedTools   the server's tools to offer, by their own names; empty means all
 * @param trusted        when true its tools run without asking; by default every MCP call needs approval
 * @param timeoutSeconds limit for connecting and for each call
 */
public record McpServerSettings(
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
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");

    public McpServerSettings {
        command = command == null || command.isBlank() ? null : command.strip();
        url = url == null || url.isBlank() ? null : url.strip();
        args = args == null ? List.of() : List.copyOf(args);
        env = env == null ? Map.of() : Map.copyOf(env);
        headers = headers == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        allowedTools = allowedTools == null ? List.of() : List.copyOf(allowedTools);
    }

    /** Every key at its default: the one an entry leaves out gets (a name and a command or url are needed). */
    public static McpServerSettings defaults() {
        return new McpServerSettings(null, null, List.of(), Map.of(), null, Map.of(), List.of(), false, (int) DEFAULT_TIMEOUT.toSeconds());
    }

    /** A stdio server: {@code command args...}, untrusted, default timeout. */
    public static McpServerSettings stdio(String name, String command, List<String> args) {
        return new McpServerSettings(name, command, args, null, null, null, null, false, (int) DEFAULT_TIMEOUT.toSeconds());
    }

    /** A streamable HTTP server, untrusted, default timeout. */
    public static McpServerSettings http(String name, String url) {
        return new McpServerSettings(name, null, null, null, url, null, null, false, (int) DEFAULT_TIMEOUT.toSeconds());
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(name != null && NAME.matcher(name).matches() && !name.contains(McpNames.SEPARATOR), "name",
                "must be 1-32 letters, digits, '-' or '_' without '" + McpNames.SEPARATOR + "', was \"" + name + "\"");
        check.require((command == null) != (url == null), "command",
                "give either command (a process) or url (streamable HTTP), not both or neither");
        if (url != null) {
            check.require(ConfigChecks.isHttpUrl(url), "url", "must be an http:// or https:// URL, was \"" + url + "\"");
        }
        check.require(timeoutSeconds >= 1, "timeout_seconds", "must be at least 1, was " + timeoutSeconds);
    }

    /** This entry, checked as the loader would check it. @throws dev.herald.core.config.ConfigException naming the broken key */
    public McpServerSettings checked() {
        validate(ConfigChecks.inCode("mcp_servers." + name));
        return this;
    }

    public McpServerSettings withEnv(Map<String, String> values) {
        return new McpServerSettings(name, command, args, secrets(values), url, headers, allowedTools, trusted, timeoutSeconds);
    }

    public McpServerSettings withHeaders(Map<String, String> values) {
        return new McpServerSettings(name, command, args, env, url, secrets(values), allowedTools, trusted, timeoutSeconds);
    }

    public McpServerSettings withAllowedTools(List<String> tools) {
        return new McpServerSettings(name, command, args, env, url, headers, tools, trusted, timeoutSeconds);
    }

    public McpServerSettings withTrusted(boolean value) {
        return new McpServerSettings(name, command, args, env, url, headers, allowedTools, value, timeoutSeconds);
    }

    /** With a call limit of {@code value}, rounded up to whole seconds. */
    public McpServerSettings withTimeout(Duration value) {
        return new McpServerSettings(name, command, args, env, url, headers, allowedTools, trusted,
                (int) Math.max(1, (value.toMillis() + 999) / 1000));
    }

    /** The limit for connecting and for each call. */
    public Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }

    /** The process's extra environment with its values revealed: only for starting the process. */
    public Map<String, String> revealedEnv() {
        return revealed(env);
    }

    /** The HTTP headers with their values revealed: only for the requests to the server. */
    public Map<String, String> revealedHeaders() {
        return revealed(headers);
    }

    public boolean stdio() {
        return command != null;
    }

    /** Where the server is, for logs and errors: the command, or the URL without its query. */
    public String where() {
        return stdio() ? command : url.replaceAll("\\?.*$", "");
    }

    private static Map<String, Secret> secrets(Map<String, String> values) {
        Map<String, Secret> out = new LinkedHashMap<>();
        if (values != null) {
            values.forEach((k, v) -> out.put(k, Secret.of(v)));
        }
        return out;
    }

    private static Map<String, String> revealed(Map<String, Secret> secrets) {
        Map<String, String> out = new LinkedHashMap<>();
        secrets.forEach((k, v) -> v.reveal().ifPresent(value -> out.put(k, value)));
        return out;
    }

    @Override
    public String toString() {
        return "McpServerSettings[name=" + name + (stdio() ? ", command=" + command + ", args=" + args : ", url=" + (url == null ? null : where()))
                + ", env=" + env.keySet() + "=***, headers=" + headers.keySet() + "=***, allowedTools=" + allowedTools + ", trusted="
                + trusted + ", timeout=" + timeoutSeconds + " s]";
    }
}
