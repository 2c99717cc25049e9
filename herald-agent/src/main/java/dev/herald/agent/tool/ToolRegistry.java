package dev.herald.agent.tool;

import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnOptions;
import dev.herald.core.agent.TurnRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Every tool Herald can offer (built-ins plus those of {@link ToolSource}s such as MCP servers) and the
 * per-platform selection of {@link ToolSettings}. Thread-safe; one per process.
 */
public final class ToolRegistry {
    /** Selects every tool that comes from a {@link ToolSource} (MCP). */
    public static final String ALL_MCP = "mcp";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final ToolSettings settings;
    private final Map<String, Tool> builtins = new LinkedHashMap<>();
    private final List<ToolSource> sources;

    public ToolRegistry(ToolSettings settings, List<Tool> builtins, List<ToolSource> sources) {
        this.settings = Objects.requireNonNull(settings, "settings");
        for (Tool tool : builtins) {
            if (!NAME.matcher(tool.name()).matches()) {
                throw new IllegalArgumentException("tool - '" + tool.name() + "' is not a valid tool name ([A-Za-z0-9_-], at most 64)");
            }
            if (this.builtins.putIfAbsent(tool.name(), tool) != null) {
                throw new IllegalArgumentException("tool - two tools are called '" + tool.name() + "'");
            }
        }
        this.sources = List.copyOf(sources);
    }

    /** The built-in tools of {@link BuiltinTools} plus the given sources. */
    public static ToolRegistry standard(ToolSettings settings, ToolSource... sources) {
        return new ToolRegistry(settings, BuiltinTools.all(settings), List.of(sources));
    }

    /** No tools at all: the agent only talks. */
    public static ToolRegistry none() {
        ToolSettings nothing = ToolSettings.defaults(Path.of(System.getProperty("java.io.tmpdir"), "herald-workspaces")).withTools(List.of());
        return new ToolRegistry(nothing, List.of(), List.of());
    }

    public ToolSettings settings() {
        return settings;
    }

    /** The tools a turn on {@code platformId} gets, in the order of the platform's list. */
    public ToolSet forPlatform(String platformId) {
        return select(settings.toolsFor(platformId));
    }

    /**
     * The tools of one turn on {@code platformId}: the platform's, limited by {@code allowlist} when there is one. A
     * list that does not widen keeps only tools the platform offers anyway (in the platform's order); one that widens
     * (an operator's) is used as it is.
     */
    public ToolSet forTurn(String platformId, TurnOptions.ToolAllowlist allowlist) {
        if (allowlist == null) {
            return forPlatform(platformId);
        }
        ToolSet allowed = select(allowlist.entries());
        return allowlist.widens() ? allowed : forPlatform(platformId).retain(allowed);
    }

    /** Every tool there is now, by name: the built-ins, then the sources' (MCP) tools. */
    public List<String> names() {
        List<String> names = new ArrayList<>(builtins.keySet());
        sources.forEach(s -> s.tools().forEach(t -> names.add(t.name())));
        return names;
    }

    /** The tools a tool list names (names, {@code prefix*} patterns, {@code mcp}), in the list's order. */
    private ToolSet select(List<String> wanted) {
        if (wanted.isEmpty()) {
            return ToolSet.EMPTY;
        }
        List<Tool> dynamic = new ArrayList<>();
        for (ToolSource source : sources) {
            dynamic.addAll(source.tools());
        }
        List<Tool> chosen = new ArrayList<>();
        for (String entry : wanted) {
            if (entry.equals(ALL_MCP)) {
                chosen.addAll(dynamic);
            } else if (entry.endsWith("*")) {
                String prefix = entry.substring(0, entry.length() - 1);
                builtins.values().stream().filter(t -> t.name().startsWith(prefix)).forEach(chosen::add);
                dynamic.stream().filter(t -> t.name().startsWith(prefix)).forEach(chosen::add);
            } else if (builtins.containsKey(entry)) {
                chosen.add(builtins.get(entry));
            } else {
                dynamic.stream().filter(t -> t.name().equals(entry)).findFirst().ifPresent(chosen::add);
            }
        }
        return new ToolSet(chosen);
    }

    /** The context of one turn's tool calls: its scope, workspace, interrupt and user. */
    public ToolContext context(TurnRequest request, Interrupt interrupt) {
        String scope = scopeOf(request);
        return new ToolContext(request.sessionId(), scope, request.platformId(), workspaceOf(settings.workspaceRoot(), scope), interrupt,
                null, request.user());
    }

    /** The key per-session state is kept under: the lane's key, else (stateless turns) the session id. */
    public static String scopeOf(TurnRequest request) {
        return request.sessionKey() != null && !request.sessionKey().isBlank() ? request.sessionKey() : request.sessionId();
    }

    /** The workspace of {@code scope} (a lane's key, or a stateless turn's session id) under {@code root}. */
    public static java.nio.file.Path workspaceOf(java.nio.file.Path root, String scope) {
        return root.resolve(directoryName(scope));
    }

    /** A file-system-safe, collision-free directory name for a scope: readable part plus a short hash. */
    static String directoryName(String scope) {
        StringBuilder readable = new StringBuilder(Math.min(scope.length(), 60)); // every turn: no regular expression
        for (int i = 0; i < scope.length() && readable.length() < 60; ) {
            int c = scope.codePointAt(i);
            boolean safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
            readable.append(safe ? (char) c : '_'); // one '_' per character, as ever: existing workspaces keep their names
            i += Character.charCount(c);
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(scope.getBytes(StandardCharsets.UTF_8));
            return readable + "-" + HexFormat.of().formatHex(hash, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
