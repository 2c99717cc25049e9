package dev.herald.agent.tool;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which tools a turn gets and the limits of the built-in ones. Validated on construction, then immutable.
 *
 * <p>Tool lists ({@code agent.tools}, and per platform {@code agent.platform_tools.<platform id>}) name tools:
 * a built-in ({@code shell}, {@code read_file}, ...), an MCP tool ({@code github__create_issue}), a prefix
 * pattern ending in {@code *} ({@code github__*}: every tool of that server), or {@code mcp} (every MCP tool).
 * An empty list means no tools. A platform without an override gets {@code agent.tools}.
 *
 * @param tools          {@code agent.tools}: the default list (default {@link #DEFAULT_TOOLS})
 * @param platformTools  {@code agent.platform_tools}: platform id to its own list
 * @param workspaceRoot  {@code agent.workspace_root}: each session's workspace is a directory below it
 * @param shellTimeout   {@code agent.shell_timeout_seconds}: longest a shell command may run (default 120 s); a call
 *                       may ask for less, never more
 * @param resultLimit    {@code agent.tool_result_limit}: most characters of one tool result the model sees
 *                       (default 20,000); longer output keeps its head and tail
 * @param httpTimeout    {@code agent.http_timeout_seconds}: time limit of one http_get (default 20 s)
 * @param httpMaxBytes   {@code agent.http_max_bytes}: most bytes http_get downloads (default 2 MiB)
 * @param httpAllow      {@code agent.http_allow}: host names and CIDR blocks http_get may reach although they are not
 *                       public (loopback, private, link-local); default none ({@link dev.herald.agent.egress.EgressPolicy})
 * @param fileLimits     {@code agent.file_max_bytes}, {@code agent.workspace_max_bytes}: how large a file a chat sends into
 *                       a workspace may be, and all of the workspace's files together
 */
public record ToolSettings(
        List<String> tools, Map<String, List<String>> platformTools, Path workspaceRoot, Duration shellTimeout, int resultLimit,
        Duration httpTimeout, long httpMaxBytes, List<String> httpAllow, FileLimits fileLimits) {

    public static final List<String> DEFAULT_TOOLS = List.of("shell", "read_file", "write_file", "list_dir", "http_get", "todo", "schedule",
            "send_file", "skill", "memory", "mcp");
    public static final Duration DEFAULT_SHELL_TIMEOUT = Duration.ofSeconds(120);
    public static final int DEFAULT_RESULT_LIMIT = 20_000;
    /** The fewest and the most characters {@code agent.tool_result_limit} may keep. */
    public static final int MIN_RESULT_LIMIT = 1_000;
    public static final int MAX_RESULT_LIMIT = 1_000_000;
    public static final Duration DEFAULT_HTTP_TIMEOUT = Duration.ofSeconds(20);
    public static final long DEFAULT_HTTP_MAX_BYTES = 2L * 1024 * 1024;

    public ToolSettings {
        tools = tools == null ? DEFAULT_TOOLS : List.copyOf(tools);
        Map<String, List<String>> copy = new LinkedHashMap<>();
        if (platformTools != null) {
            platformTools.forEach((platform, list) -> copy.put(Objects.requireNonNull(platform, "platform id"), List.copyOf(list)));
        }
        platformTools = Map.copyOf(copy);
        Objects.requireNonNull(workspaceRoot, "agent.workspace_root is required");
        workspaceRoot = workspaceRoot.toAbsolutePath().normalize();
        shellTimeout = positive(shellTimeout, DEFAULT_SHELL_TIMEOUT, "agent.shell_timeout_seconds");
        httpTimeout = positive(httpTimeout, DEFAULT_HTTP_TIMEOUT, "agent.http_timeout_seconds");
        if (resultLimit < MIN_RESULT_LIMIT || resultLimit > MAX_RESULT_LIMIT) {
            throw new IllegalArgumentException("agent.tool_result_limit must be between 1,000 and 1,000,000 characters (got " + resultLimit + ")");
        }
        if (httpMaxBytes < 1_024) {
            throw new IllegalArgumentException("agent.http_max_bytes must be at least 1,024 (got " + httpMaxBytes + ")");
        }
        httpAllow = httpAllow == null ? List.of() : List.copyOf(httpAllow);
        fileLimits = fileLimits == null ? FileLimits.DEFAULT : fileLimits;
        httpAllow.forEach(entry -> dev.herald.agent.egress.EgressPolicy.problem(entry).ifPresent(problem -> {
            throw new IllegalArgumentException(dev.herald.agent.egress.EgressPolicy.ALLOW_KEY + " - " + problem);
        }));
    }

    /** With the default file limits. */
    public ToolSettings(List<String> tools, Map<String, List<String>> platformTools, Path workspaceRoot, Duration shellTimeout,
            int resultLimit, Duration httpTimeout, long httpMaxBytes, List<String> httpAllow) {
        this(tools, platformTools, workspaceRoot, shellTimeout, resultLimit, httpTimeout, httpMaxBytes, httpAllow, FileLimits.DEFAULT);
    }

    /** The same settings with other file limits. */
    public ToolSettings withFileLimits(FileLimits limits) {
        return new ToolSettings(tools, platformTools, workspaceRoot, shellTimeout, resultLimit, httpTimeout, httpMaxBytes, httpAllow, limits);
    }

    /** Without exceptions to the egress guard. */
    public ToolSettings(List<String> tools, Map<String, List<String>> platformTools, Path workspaceRoot, Duration shellTimeout,
            int resultLimit, Duration httpTimeout, long httpMaxBytes) {
        this(tools, platformTools, workspaceRoot, shellTimeout, resultLimit, httpTimeout, httpMaxBytes, List.of());
    }

    /** The defaults, with workspaces under {@code workspaceRoot}. */
    public static ToolSettings defaults(Path workspaceRoot) {
        return new ToolSettings(null, null, workspaceRoot, null, DEFAULT_RESULT_LIMIT, null, DEFAULT_HTTP_MAX_BYTES);
    }

    public ToolSettings withTools(List<String> names) {
        return new ToolSettings(names, platformTools, workspaceRoot, shellTimeout, resultLimit, httpTimeout, httpMaxBytes, httpAllow, fileLimits);
    }

    public ToolSettings withPlatformTools(String platformId, List<String> names) {
        Map<String, List<String>> more = new LinkedHashMap<>(platformTools);
        more.put(platformId, names);
        return new ToolSettings(tools, more, workspaceRoot, shellTimeout, resultLimit, httpTimeout, httpMaxBytes, httpAllow, fileLimits);
    }

    public ToolSettings withShellTimeout(Duration timeout) {
        return new ToolSettings(tools, platformTools, workspaceRoot, timeout, resultLimit, httpTimeout, httpMaxBytes, httpAllow, fileLimits);
    }

    /** The same settings with {@code agent.http_allow} set to {@code entries}. */
    public ToolSettings withHttpAllow(List<String> entries) {
        return new ToolSettings(tools, platformTools, workspaceRoot, shellTimeout, resultLimit, httpTimeout, httpMaxBytes, entries, fileLimits);
    }

    /** The same settings with another http_get time limit. */
    public ToolSettings withHttpTimeout(Duration timeout) {
        return new ToolSettings(tools, platformTools, workspaceRoot, shellTimeout, resultLimit, timeout, httpMaxBytes, httpAllow, fileLimits);
    }

    /** The tool list for a platform: its override, else {@link #tools()}. */
    public List<String> toolsFor(String platformId) {
        return platformId != null && platformTools.containsKey(platformId) ? platformTools.get(platformId) : tools;
    }

    private static Duration positive(Duration value, Duration fallback, String name) {
        if (value == null) {
            return fallback;
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive (got " + value.toMillis() + " ms)");
        }
        return value;
    }
}
