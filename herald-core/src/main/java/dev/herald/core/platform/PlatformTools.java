package dev.herald.core.platform;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The tools platform plug-ins offer the agent, registered through {@link PlatformContext#offerTool} while the adapters
 * are made, read by the agent's tool registry at every model call. Thread-safe; one per process.
 */
public final class PlatformTools {
    private final List<PlatformTool> tools = new CopyOnWriteArrayList<>();

    /** Adds {@code tool}; a second tool of the same name is refused, naming both. */
    public synchronized void offer(Platform platform, PlatformTool tool) {
        for (PlatformTool t : tools) {
            if (t.name().equals(tool.name())) {
                throw new IllegalArgumentException("plugins - " + platform + " offers a tool called '" + tool.name()
                        + "', and another plug-in already offers one of that name");
            }
        }
        tools.add(tool);
    }

    /** The tools offered so far, in the order they were offered. */
    public List<PlatformTool> all() {
        return List.copyOf(tools);
    }
}
