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
 *
 * <p>{@link #reload} ({@code /reload-mcp}) replaces the servers with those of a new configuration without a restart: the
 * old ones are stopped (a turn's call in flight on one of them fails with its usual error), the new ones started as at
 * start-up. The list of servers is one immutable list swapped whole, so a turn reading the tools sees the old set or the
 * new one, never a mix; reloads are serialized.
 */
public final class McpTools implements ToolSource, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(McpTools.class);

    /** One server's state for /status: READY, CONNECTING, RESTARTING or STOPPED, its tool count and restart attempt. */
    public record ServerStatus(String name, String state, int tools, int attempt) {
    }

    private volatile List<McpServer> servers;
    private final Backoff backoff;

    public McpTools(List<McpServerSettings> settings) {
        this(settings, McpServer.RESTARTS);
    }

    public McpTools(List<McpServerSettings> settings, Backoff backoff) {
        this.backoff = backoff;
        this.servers = build(settings, backoff);
    }

    private static List<McpServer> build(List<McpServerSettings> settings, Backoff backoff) {
        List<McpServer> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (McpServerSettings server : settings) {
            try {
                server.checked();
            } catch (dev.herald.core.config.ConfigException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            if (!names.add(server.name())) {
                throw new IllegalArgumentException("mcp_servers: two servers are named '" + server.name() + "'");
            }
            out.add(new McpServer(server, backoff));
        }
        return List.copyOf(out);
    }

    /** What {@link #reload} did: the servers that came up (with their tool count) and those that did not, by name. */
    public record Reloaded(List<ServerStatus> up, List<String> failed) {
        public Reloaded {
            up = List.copyOf(up);
            failed = List.copyOf(failed);
        }
    }

    /**
     * Stops every server and starts those of {@code settings} instead (in parallel, each once, as at start-up); returns
     * which came up. A server that failed keeps retrying in the background like one that failed at start-up.
     *
     * @throws IllegalArgumentException when two servers of {@code settings} share a name (nothing is stopped then)
     */
    public synchronized Reloaded reload(List<McpServerSettings> settings) {
        List<McpServer> fresh = build(settings, backoff);
        List<McpServer> old = servers;
        old.forEach(McpServer::stop);
        startAll(fresh);
        servers = fresh;
        List<ServerStatus> up = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (ServerStatus s : status()) {
            if (s.state().equals("READY")) {
                up.add(s);
            } else {
                failed.add(s.name());
            }
        }
        log.info("mcp - reloaded: {} server(s) stopped, {} started ({} up{}), {} tools offered", old.size(), fresh.size(), up.size(),
                failed.isEmpty() ? "" : ", failed: " + String.join(", ", failed), tools().size());
        return new Reloaded(up, failed);
    }

    /** Connects every server, in parallel; returns once each has connected or failed its first attempt. */
    public McpTools start() {
        startAll(servers);
        log.info("mcp - {} server(s) started, {} tools offered", servers.size(), tools().size());
        return this;
    }

    private static void startAll(List<McpServer> servers) {
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
