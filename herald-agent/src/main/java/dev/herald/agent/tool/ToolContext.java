package dev.herald.agent.tool;

import dev.herald.core.agent.Interrupt;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where and for whom a tool call runs.
 *
 * @param sessionId  the transcript session of the turn
 * @param scope      the per-session key that tools keep their state under (the lane's key, else the session
 *                   id); the workspace directory and the todo list belong to it
 * @param platformId the platform the turn serves
 * @param workspace  the scope's working directory (it may not exist yet: tools that write create it)
 * @param interrupt  the turn's interrupt; raised means stop now
 * @param outgoing   takes a file the agent sends to the chat with its reply ({@code send_file}); null where the caller
 *                   delivers no files
 * @param user       who the turn is for ({@link dev.herald.core.agent.TurnRequest#user()}), or null when unknown
 */
public record ToolContext(String sessionId, String scope, String platformId, Path workspace, Interrupt interrupt,
        java.util.function.Consumer<dev.herald.core.platform.OutboundFile> outgoing, String user) {
    public ToolContext {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(interrupt, "interrupt");
    }

    /** A context whose caller delivers no files, for no known user. */
    public ToolContext(String sessionId, String scope, String platformId, Path workspace, Interrupt interrupt) {
        this(sessionId, scope, platformId, workspace, interrupt, null, null);
    }

    /** A context for no known user. */
    public ToolContext(String sessionId, String scope, String platformId, Path workspace, Interrupt interrupt,
            java.util.function.Consumer<dev.herald.core.platform.OutboundFile> outgoing) {
        this(sessionId, scope, platformId, workspace, interrupt, outgoing, null);
    }

    /** This context handing the files the agent sends to {@code sink}. */
    public ToolContext withOutgoing(java.util.function.Consumer<dev.herald.core.platform.OutboundFile> sink) {
        return new ToolContext(sessionId, scope, platformId, workspace, interrupt, sink, user);
    }

    /**
     * True when {@code path} lies inside the workspace, symbolic links followed: the longest existing prefix
     * of each is resolved to its real path, so a link inside the workspace that points out of it is outside.
     */
    public boolean insideWorkspace(Path path) {
        return real(path).startsWith(real(workspace));
    }

    /**
     * True when {@code path} (links followed, as {@link #insideWorkspace}) is under {@code root}, the folder of every
     * conversation's workspace ({@code agent.workspace_root}), but not in this conversation's workspace: another
     * conversation's workspace, or the root itself (whose listing names them all). The file tools refuse such a path
     * whatever is approved, since the person approving is the one asking ({@link #anotherWorkspace}).
     */
    public boolean inAnotherWorkspace(Path path, Path root) {
        Path real = real(path);
        return real.startsWith(real(root)) && !real.startsWith(real(workspace));
    }

    /** What a file tool answers for a path in {@link #inAnotherWorkspace another conversation's workspace}. */
    static ToolResult anotherWorkspace(Path path) {
        return ToolResult.error(path + " is in the folder of the conversations' workspaces, outside this conversation's own; "
                + "each conversation reaches only its own workspace (relative paths are inside it)");
    }

    private static Path real(Path path) {
        Path absolute = path.toAbsolutePath().normalize();
        Path existing = absolute;
        while (existing != null && !java.nio.file.Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return absolute;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(absolute)).normalize();
        } catch (java.io.IOException e) {
            return absolute;
        }
    }

    /** Creates the workspace (mode 700, its root too) when it does not exist yet; returns it. */
    public Path createWorkspace() throws java.io.IOException {
        Workspaces.create(workspace);
        return workspace;
    }

    /** A path argument resolved against the workspace: relative paths are inside it, absolute ones as given. */
    public Path resolve(String path) {
        Path given = Path.of(path.isBlank() ? "." : path);
        return (given.isAbsolute() ? given : workspace.resolve(given)).toAbsolutePath().normalize();
    }
}
