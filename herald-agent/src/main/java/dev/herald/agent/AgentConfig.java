package dev.herald.agent;

import dev.herald.agent.compress.CompressionSettings;
import dev.herald.agent.egress.EgressPolicy;
import dev.herald.agent.tool.FileLimits;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;
import dev.herald.core.gateway.GatewaySettings;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code agent:} the tool-calling loop: which tools it has (per platform if wanted), where they work, how
 * long they may take, when a dangerous call must be approved, and when the history is summarized. The configuration
 * loader binds the section straight into this record; {@link #toolSettings()} is the tools' {@link ToolSettings}, and its
 * defaults and limits are the components' own ({@link ToolSettings}, {@link AgentSettings}, {@link CompressionSettings},
 * {@link FileLimits}, {@link GatewaySettings}).
 */
public record AgentConfig(
        @Doc("model calls per turn before the turn stops as not completed")
        int maxIterations,
        @Doc("tools the agent may use: shell, read_file, write_file, list_dir, http_get, todo, schedule, send_file, skill, memory, mcp (every MCP tool) or a prefix like github__*")
        List<String> tools,
        @Doc("per-platform tool lists that replace agent.tools, e.g. {api_server: [read_file]}; webhook gets none unless listed here, "
                + "since anyone who can post to a route steers the agent")
        Map<String, List<String>> platformTools,
        @Doc("folder holding one working directory per conversation; relative paths are under $HERALD_HOME")
        Path workspaceRoot,
        @Doc("seconds a shell command may run before it and its children are killed")
        int shellTimeoutSeconds,
        @Doc("characters of one tool result kept for the model (beginning and end)")
        int toolResultLimit,
        @Doc("seconds http_get waits for a page")
        int httpTimeoutSeconds,
        @Doc("largest page http_get reads, in bytes")
        long httpMaxBytes,
        @Doc("hosts and CIDR blocks http_get may reach although they are loopback, private or link-local (refused by default), "
                + "e.g. [intranet.example, 10.0.0.0/8]; Herald's own web server refuses tool requests even then")
        List<String> httpAllow,
        @Doc("fraction of model.context_tokens at which older messages are summarized, 0.1..0.95")
        double compressionThreshold,
        @Doc("seconds a dangerous tool call waits for /approve before it is denied")
        int approvalTimeoutSeconds,
        @Doc("dangerous tools on platforms where nobody can approve (webhook, api_server): deny or allow")
        NonInteractiveApprovals nonInteractiveApprovals,
        @Doc("largest file a chat's user sends that is saved into the conversation's workspace for the agent, in bytes")
        long fileMaxBytes,
        @Doc("most bytes all files of one conversation's workspace may hold; a sent file that would pass it is not saved")
        long workspaceMaxBytes,
        @Doc("whether the agent may create and change skills ($HERALD_HOME/skills/<name>/SKILL.md) with the skill tool, each write "
                + "approved like a dangerous tool call; off: skills are read-only to the agent")
        boolean skillsWritable,
        @Doc("long-term memory per user across sessions")
        dev.herald.agent.memory.MemorySettings memory) implements Validated {

    /** The platform whose callers are anonymous senders of payloads (platforms.webhook): no tools unless configured. */
    public static final String WEBHOOK = "webhook";

    public AgentConfig {
        tools = tools == null ? List.of() : List.copyOf(tools);
        Map<String, List<String>> perPlatform = new LinkedHashMap<>(platformTools == null ? Map.of() : platformTools);
        perPlatform.putIfAbsent(WEBHOOK, List.of());
        platformTools = Collections.unmodifiableMap(perPlatform);
        httpAllow = httpAllow == null ? List.of() : List.copyOf(httpAllow);
        memory = memory == null ? dev.herald.agent.memory.MemorySettings.defaults() : memory;
    }

    public static AgentConfig defaults() {
        return new AgentConfig(AgentSettings.DEFAULT_MAX_ITERATIONS, ToolSettings.DEFAULT_TOOLS, Map.of(WEBHOOK, List.of()),
                Path.of("workspaces"), (int) ToolSettings.DEFAULT_SHELL_TIMEOUT.toSeconds(), ToolSettings.DEFAULT_RESULT_LIMIT,
                (int) ToolSettings.DEFAULT_HTTP_TIMEOUT.toSeconds(), ToolSettings.DEFAULT_HTTP_MAX_BYTES, List.of(),
                CompressionSettings.DEFAULT_THRESHOLD, (int) GatewaySettings.defaults().approvalTimeout().toSeconds(),
                NonInteractiveApprovals.DENY, FileLimits.DEFAULT_MAX_FILE_BYTES, FileLimits.DEFAULT_MAX_WORKSPACE_BYTES, false,
                dev.herald.agent.memory.MemorySettings.defaults());
    }

    /** This section with the workspace root made absolute under {@code home}. */
    public AgentConfig resolvedIn(Path home) {
        Path root = home.resolve(workspaceRoot == null ? Path.of("workspaces") : workspaceRoot).toAbsolutePath().normalize();
        return new AgentConfig(maxIterations, tools, platformTools, root, shellTimeoutSeconds, toolResultLimit, httpTimeoutSeconds,
                httpMaxBytes, httpAllow, compressionThreshold, approvalTimeoutSeconds, nonInteractiveApprovals, fileMaxBytes, workspaceMaxBytes,
                skillsWritable, memory);
    }

    /** The tools' settings: which tools, where they work, and their limits. Only after {@link #resolvedIn(Path)}. */
    public ToolSettings toolSettings() {
        return new ToolSettings(tools, platformTools, workspaceRoot, java.time.Duration.ofSeconds(shellTimeoutSeconds), toolResultLimit,
                java.time.Duration.ofSeconds(httpTimeoutSeconds), httpMaxBytes, httpAllow, new FileLimits(fileMaxBytes, workspaceMaxBytes));
    }

    /** How long a dangerous tool call waits for /approve. */
    public java.time.Duration approvalTimeout() {
        return java.time.Duration.ofSeconds(approvalTimeoutSeconds);
    }

    /** True when dangerous tools run where nobody can approve them. */
    public boolean allowsWithoutApprover() {
        return nonInteractiveApprovals == NonInteractiveApprovals.ALLOW;
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(maxIterations >= 1 && maxIterations <= 1000, "max_iterations", "must be 1..1000, was " + maxIterations);
        check.require(shellTimeoutSeconds >= 1, "shell_timeout_seconds", "must be at least 1, was " + shellTimeoutSeconds);
        check.require(toolResultLimit >= ToolSettings.MIN_RESULT_LIMIT && toolResultLimit <= ToolSettings.MAX_RESULT_LIMIT, "tool_result_limit",
                "must be " + ToolSettings.MIN_RESULT_LIMIT + ".." + ToolSettings.MAX_RESULT_LIMIT + " characters, was " + toolResultLimit);
        check.require(httpTimeoutSeconds >= 1, "http_timeout_seconds", "must be at least 1, was " + httpTimeoutSeconds);
        check.require(httpMaxBytes >= 1024, "http_max_bytes", "must be at least 1024, was " + httpMaxBytes);
        for (String entry : httpAllow) {
            EgressPolicy.problem(entry).ifPresent(problem -> check.require(false, "http_allow", "has a bad entry: " + problem));
        }
        check.require(compressionThreshold >= 0.1 && compressionThreshold <= 0.95, "compression_threshold",
                "must be 0.1..0.95, was " + ConfigChecks.number(compressionThreshold));
        check.require(approvalTimeoutSeconds >= 1, "approval_timeout_seconds", "must be at least 1, was " + approvalTimeoutSeconds);
        check.require(fileMaxBytes >= 1024, "file_max_bytes", "must be at least 1024, was " + fileMaxBytes);
        check.require(workspaceMaxBytes >= fileMaxBytes, "workspace_max_bytes",
                "must be at least file_max_bytes (" + fileMaxBytes + "), was " + workspaceMaxBytes);
        check.require(nonInteractiveApprovals != null, "non_interactive_approvals", "must be deny or allow");
    }
}
