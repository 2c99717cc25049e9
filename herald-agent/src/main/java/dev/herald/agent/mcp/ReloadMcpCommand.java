package dev.herald.agent.mcp;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /reload-mcp}: reads {@code mcp_servers:} from the configuration file again and restarts the MCP servers from it
 * ({@link McpTools#reload}) without restarting Herald. The answer names the servers that came up (with their tool count)
 * and those that failed: names only, never a command, URL, header or environment value. A configuration that cannot be
 * read leaves the running servers as they are. Admins only unless {@code commands.users} lists it.
 */
public final class ReloadMcpCommand implements CommandExtension {
    private static final Logger log = LoggerFactory.getLogger(ReloadMcpCommand.class);

    private final McpTools tools;
    private final Supplier<List<McpServerSettings>> source;

    /** @param source reads the servers of the configuration file as it is now; throws when it cannot (its message is shown) */
    public ReloadMcpCommand(McpTools tools, Supplier<List<McpServerSettings>> source) {
        this.tools = Objects.requireNonNull(tools, "tools");
        this.source = Objects.requireNonNull(source, "source");
    }

    @Override
    public String name() {
        return "reload-mcp";
    }

    @Override
    public String help() {
        return "/reload-mcp - restart the MCP servers from the configuration file";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        List<McpServerSettings> settings;
        try {
            settings = source.get();
        } catch (RuntimeException e) {
            String why = firstLine(e.getMessage());
            log.warn("mcp - /reload-mcp from {}: the configuration could not be read ({}); the servers keep running as they were", key, why);
            return "The configuration could not be read, so the MCP servers keep running as they were: " + why;
        }
        McpTools.Reloaded r;
        try {
            r = tools.reload(settings);
        } catch (IllegalArgumentException e) {
            return "The MCP servers keep running as they were: " + firstLine(e.getMessage());
        }
        log.info("mcp - /reload-mcp by {}: {} up, {} failed", key, r.up().size(), r.failed().size());
        if (r.up().isEmpty() && r.failed().isEmpty()) {
            return "\u267b\ufe0f MCP servers reloaded: none is configured (mcp_servers is empty).";
        }
        StringBuilder sb = new StringBuilder("\u267b\ufe0f MCP servers reloaded.");
        if (!r.up().isEmpty()) {
            sb.append("\nUp: ").append(r.up().stream().map(s -> s.name() + " (" + s.tools() + (s.tools() == 1 ? " tool)" : " tools)"))
                    .collect(Collectors.joining(", ")));
        }
        if (!r.failed().isEmpty()) {
            sb.append("\nFailed: ").append(String.join(", ", r.failed()))
                    .append(" (retried in the background; the log says why)");
        }
        return sb.toString();
    }

    /** A message's first line, clipped: config errors name keys and values the operator wrote, never a secret's value. */
    private static String firstLine(String message) {
        String line = message == null ? "unknown error" : message.lines().findFirst().orElse("unknown error");
        return line.length() <= 300 ? line : line.substring(0, 300) + "...";
    }
}
