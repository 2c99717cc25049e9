package dev.herald.agent.mcp;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One {@code mcp_servers:} entry: a local server started as a process speaking MCP on stdio, or a remote one
 * reached over streamable HTTP. Validated on construction; {@link #toString()} masks env and header values
 * (they usually hold tokens).
 *
 * @param name         {@code name}: letters, digits, {@code -} and {@code _} (no {@code __}); the prefix of the
 *                     server's tools ({@code <name>__<tool>})
 * @param command      {@code command}: the program of a stdio server (an absolute path is safest); null for HTTP
 * @param args         {@code args}: its arguments
 * @param env          {@code env}: extra environment for the process; it otherwise gets only HOME, LOGNAME, PATH,
 *                     SHELL, TERM and USER, never Herald's own environment
 * @param url          {@code url}: the endpoint of a streamable HTTP server; null for stdio
 * @param headers      {@code headers}: extra HTTP headers (such as Authorization) for an HTTP server
 * @param allowedTools {@code allowed_tools}: the server's tools to offer, by their own names; empty means all
 * @param trusted      {@code trusted}: when true its tools run without asking; by default every MCP call needs approval
 * @param timeout      {@code timeout_seconds}: limit for connecting and for each call (default 60 s)
 */
public record McpServerSettings(String name, String command, List<String> args, Map<String, String> env, String url,
                                Map<String, String> headers, List<String> allowedTools, boolean trusted, Duration timeout) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");

    public McpServerSettings {
        if (name == null || !NAME.matcher(name).matches() || name.contains(McpNames.SEPARATOR)) {
            throw new IllegalArgumentException("mcp_servers: name '" + name + "' must be 1-32 letters, digits, '-' or '_', without '"
                    + McpNames.SEPARATOR + "'");
        }
        command = command == null || command.isBlank() ? null : command.strip();
        url = url == null || url.isBlank() ? null : url.strip();
        if ((command == null) == (url == null)) {
            throw new IllegalArgumentException("mcp_servers." + name + " needs either command (a stdio server) or url (a streamable HTTP "
                    + "server), not " + (command == null ? "neither" : "both"));
        }
        if (url != null) {
            URI uri = URI.create(url);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
                throw new IllegalArgumentException("mcp_servers." + name + ".url must be an http:// or https:// URL (got '" + url + "')");
            }
        }
        args = args == null ? List.of() : List.copyOf(args);
        env = env == null ? Map.of() : Map.copyOf(env);
        headers = headers == null ? Map.of() : Map.copyOf(new LinkedHashMap<>(headers));
        allowedTools = allowedTools == null ? List.of() : List.copyOf(allowedTools);
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("mcp_servers." + name + ".timeout_seconds must be positive");
        }
    }

    /** A stdio server: {@code command args...}, untrusted, default timeout. */
    public static McpServerSettings stdio(String name, String command, List<String> args) {
        return new McpServerSettings(name, command, args, null, null, null, null, false, null);
    }

    /** A streamable HTTP server, untrusted, default timeout. */
    public static McpServerSettings http(String name, String url) {
        return new McpServerSettings(name, null, null, null, url, null, null, false, null);
    }

    public McpServerSettings withEnv(Map<String, String> values) {
        return new McpServerSettings(name, command, args, values, url, headers, allowedTools, trusted, timeout);
    }

    public McpServerSettings withHeaders(Map<String, String> values) {
        return new McpServerSettings(name, command, args, env, url, values, allowedTools, trusted, timeout);
    }

    public McpServerSettings withAllowedTools(List<String> tools) {
        return new McpServerSettings(name, command, args, env, url, headers, tools, trusted, timeout);
    }

    public McpServerSettings withTrusted(boolean value) {
        return new McpServerSettings(name, command, args, env, url, headers, allowedTools, value, timeout);
    }

    public McpServerSettings withTimeout(Duration value) {
        return new McpServerSettings(name, command, args, env, url, headers, allowedTools, trusted, value);
    }

    public boolean isStdio() {
        return command != null;
    }

    /** Where the server is, for logs and errors: the command, or the URL without its query. */
    public String where() {
        return isStdio() ? command : url.replaceAll("\\?.*$", "");
    }

    @Override
    public String toString() {
        return "McpServerSettings[name=" + name + (isStdio() ? ", command=" + command + ", args=" + args : ", url=" + where())
                + ", env=" + env.keySet() + "=***, headers=" + headers.keySet() + "=***, allowedTools=" + allowedTools + ", trusted="
                + trusted + ", timeout=" + timeout.toSeconds() + " s]";
    }
}
