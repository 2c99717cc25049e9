package dev.herald.agent.mcp;

import dev.herald.core.retry.Backoff;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP servers of {@code mcp_servers:}: connected at start-up (in parallel; {@link #start} returns when each
 * has connected or failed once), supervised afterwards ({@link McpServer}), their tools offered as
 * {@code <server>__<tool>}. Register it as a {@link dev.herald.agent.tool.ToolSource} of the tool registry.
 */
public final class McpTools implements ToolSource, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(McpTools.class);

    /** One server's state for /status: READY, CONNECTING, RESTARTING or STOPPED, its tool count and restart attempt. */
    public record ServerStatus(String name, String state, int tools, int attempt) {
    }

    private final List<McpServer> servers = new ArrayList<>();

    public McpTools(List<McpServerSettings> settings) {
        this(settings, McpServer.RESTARTS);
    }

    public McpTools(List<McpServerSettings> settings, Backoff backoff) {
        Set<String> names = new HashSet<>();
        for (McpServerSettings server : settings) {
            if (!names.add(server.name())) {
                throw new IllegalArgumentException("mcp_servers: two servers are named '" + server.name() + "'");
            }
            servers.add(new McpServer(server, backoff));
        }
    }

    /** Connects every server, in parallel; returns once each has connected or failed its first attempt. */
    public McpTools start() {
        List<Thread> starting = new ArrayList<>();
        for (McpServer server : servers) {
            starting.add(Thread.ofVirtual().name("mcp-start-" + server.settings().name()).start(server::start));
        }
        for (Thread thread : starting) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        log.info("mcp - {} server(s) started, {} tools offered", servers.size(), tools().size());
        return this;
    }

    @Override
    public List<Tool> tools() {
        List<Tool> all = new ArrayList<>();
        for (McpServer server : servers) {
            all.addAll(server.tools());
        }
        return all;
    }

    public List<ServerStatus> status() {
        List<ServerStatus> out = new ArrayList<>();
        for (McpServer server : servers) {
            McpServer.State state = server.state();
            int attempt = switch (state) {
                case McpServer.State.Connecting c -> c.attempt();
                case McpServer.State.Restarting r -> r.attempt();
                default -> 0;
            };
            String name = state.getClass().getSimpleName().toUpperCase(java.util.Locale.ROOT);
            out.add(new ServerStatus(server.settings().name(), name, server.tools().size(), attempt));
        }
        return out;
    }

    @Override
    public void close() {
        servers.forEach(McpServer::stop);
    }
}
