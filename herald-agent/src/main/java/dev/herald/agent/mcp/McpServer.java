package dev.herald.agent.mcp;

import dev.herald.core.retry.Backoff;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.agent.tool.Texts;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolResult;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MCP server: its connection and its supervisor. The state machine has one writer, the transitions
 * below, all under {@code lock}:
 *
 * <pre>
 *   CONNECTING --connected--> READY --process exited / HTTP call failed--> RESTARTING --delay--> CONNECTING
 *   CONNECTING --failed--> RESTARTING (attempt + 1)          any --stop--> STOPPED
 * </pre>
 *
 * A stdio server is watched by a virtual thread waiting for its process to exit. Restarts wait
 * {@link Backoff#delay} (1 s, 2 s, 4 s ... 60 s); the attempt count starts again after a successful
 * connection. The tool list is fetched at every connection, so a server that comes back with other tools
 * is seen with them; while it is away its last known tools stay offered and answer with a clear error.
 */
final class McpServer {
    private static final Logger log = LoggerFactory.getLogger(McpServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_PAGES = 20;

    /** Where the server is in its life. */
    sealed interface State {
        record Connecting(int attempt) implements State {
        }

        record Ready(McpAsyncClient client, long generation, long connectedAt) implements State {
        }

        record Restarting(int attempt, long nextAtNanos, String why) implements State {
        }

        record Stopped() implements State {
        }
    }

    /** 1 s, 2 s, 4 s ... 60 s, without jitter: servers are few and local. */
    static final Backoff RESTARTS = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(60));

    private final McpServerSettings settings;
    private final Backoff backoff;
    private final Object lock = new Object();
    private State state = new State.Connecting(0);
    private long generation;
    private Thread restarter;
    private volatile List<Tool> tools = List.of();

    McpServer(McpServerSettings settings, Backoff backoff) {
        this.settings = settings;
        this.backoff = backoff;
    }

    McpServerSettings settings() {
        return settings;
    }

    List<Tool> tools() {
        return tools;
    }

    State state() {
        synchronized (lock) {
            return state;
        }
    }

    /** The first connection, on the caller's thread; a failure schedules the first retry. */
    void start() {
        connect(0);
    }

    private void connect(int attempt) {
        long start = System.nanoTime();
        McpAsyncClient client = null;
        try {
            McpClientTransport transport = transport();
            client = McpClient.async(transport).requestTimeout(settings.timeout()).initializationTimeout(settings.timeout())
                    .clientInfo(new McpSchema.Implementation("herald", "0.1")).build();
            client.initialize().block(settings.timeout());
            List<McpSchema.Tool> listed = listAll(client);
            long gen;
            synchronized (lock) {
                if (state instanceof State.Stopped) {
                    closeQuietly(client);
                    return;
                }
                gen = ++generation;
                state = new State.Ready(client, gen, System.nanoTime());
            }
            publish(listed);
            if (transport instanceof StdioClientTransport stdio) {
                watch(stdio, gen);
            }
            log.info("mcp - server '{}' {} in {} ms ({} tools offered of {})", settings.name(),
                    attempt == 0 ? "connected" : "reconnected on attempt " + attempt, Texts.number(elapsedMs(start)), tools.size(),
                    listed.size());
        } catch (RuntimeException e) {
            closeQuietly(client);
            String why = describe(e);
            Duration delay = backoff.delay(attempt + 1);
            log.warn("mcp - server '{}' ({}) could not connect after {} ms ({}); retrying in {} (attempt {})", settings.name(),
                    settings.where(), Texts.number(elapsedMs(start)), why, readable(delay), attempt + 1);
            scheduleRestart(attempt + 1, why);
        }
    }

    private McpClientTransport transport() {
        JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(JSON);
        if (!settings.stdio()) {
            HttpClientStreamableHttpTransport.Builder builder = HttpClientStreamableHttpTransport.builder(settings.url())
                    .jsonMapper(mapper).connectTimeout(settings.timeout());
            if (!settings.revealedHeaders().isEmpty()) {
                builder.httpRequestCustomizer((request, method, uri, body, context) -> settings.revealedHeaders().forEach(request::header));
            }
            return builder.build();
        }
        requireExecutable(settings.command());
        ServerParameters parameters = ServerParameters.builder(OWN_SESSION ? SETSID : settings.command())
                .args(OWN_SESSION ? withCommand(settings.command(), settings.args()) : settings.args()).env(settings.revealedEnv()).build();
        StdioClientTransport stdio = new StdioClientTransport(parameters, mapper) {
            /** Starts from an empty environment: the SDK then adds HOME, LOGNAME, PATH, SHELL, TERM, USER and the configured env. */
            @Override
            protected ProcessBuilder getProcessBuilder() {
                ProcessBuilder builder = new ProcessBuilder();
                builder.environment().clear();
                return builder;
            }
        };
        stdio.setStdErrorHandler(line -> log.debug("mcp - server '{}' stderr: {}", settings.name(), Texts.line(line, 300)));
        return stdio;
    }

    /**
     * A stdio server runs in a session (and so a process group) of its own, through util-linux's {@code setsid},
     * which replaces itself with the server (same pid: stopping the process stops the server). A Ctrl-C in
     * Herald's terminal then reaches Herald alone, not the servers, which Herald stops after its drain.
     */
    static final String SETSID = "/usr/bin/setsid";
    static final boolean OWN_SESSION = Files.isExecutable(Path.of(SETSID));

    private static List<String> withCommand(String command, List<String> args) {
        List<String> all = new java.util.ArrayList<>(args.size() + 1);
        all.add(command);
        all.addAll(args);
        return all;
    }

    /** Fails fast when the command cannot be started (the SDK would only notice at the end of the initialization timeout). */
    private void requireExecutable(String command) {
        if (command.contains("/")) {
            if (!Files.isExecutable(Path.of(command))) {
                throw new IllegalStateException("the command " + command + " does not exist or is not executable");
            }
            return;
        }
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "" : path).split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return;
            }
        }
        throw new IllegalStateException("the command '" + command + "' is not on the PATH; use an absolute path in mcp_servers."
                + settings.name() + ".command");
    }

    private static List<McpSchema.Tool> listAll(McpAsyncClient client) {
        List<McpSchema.Tool> all = new ArrayList<>();
        String cursor = null;
        for (int page = 0; page < MAX_PAGES; page++) {
            McpSchema.ListToolsResult result = cursor == null ? client.listTools().block() : client.listTools(cursor).block();
            if (result == null) {
                break;
            }
            all.addAll(result.tools());
            cursor = result.nextCursor();
            if (cursor == null || cursor.isEmpty()) {
                break;
            }
        }
        return all;
    }

    /** Exposes the listed tools (filtered by {@code allowed_tools}) under their namespaced names. */
    private void publish(List<McpSchema.Tool> listed) {
        Set<String> taken = McpNames.newTaken();
        List<Tool> exposed = new ArrayList<>();
        for (McpSchema.Tool tool : listed) {
            if (!settings.allowedTools().isEmpty() && !settings.allowedTools().contains(tool.name())) {
                continue;
            }
            String description = (tool.description() == null ? "" : tool.description()) + " (MCP server '" + settings.name() + "')";
            exposed.add(new McpTool(this, tool.name(), McpNames.exposed(settings.name(), tool.name(), taken), description.strip(),
                    schema(tool.inputSchema())));
        }
        tools = List.copyOf(exposed);
    }

    private static JsonNode schema(Map<String, Object> input) {
        if (input == null || input.isEmpty()) {
            ObjectNode empty = JSON.createObjectNode().put("type", "object");
            empty.putObject("properties");
            return empty;
        }
        return JSON.valueToTree(input);
    }

    private void watch(StdioClientTransport transport, long gen) {
        Thread.ofVirtual().name("mcp-watch-" + settings.name()).start(() -> {
            try {
                transport.awaitForExit();
            } catch (RuntimeException e) {
                return;
            }
            lost(gen, "its process exited");
        });
    }

    /** The connection of generation {@code gen} is gone: restart, unless that already happened or the server was stopped. */
    void lost(long gen, String why) {
        McpAsyncClient client;
        synchronized (lock) {
            if (!(state instanceof State.Ready ready) || ready.generation() != gen) {
                return;
            }
            client = ready.client();
        }
        log.warn("mcp - server '{}' lost: {}; restarting in {} (attempt 1)", settings.name(), why, readable(backoff.delay(1)));
        scheduleRestart(1, why);
        closeQuietly(client);
    }

    private void scheduleRestart(int attempt, String why) {
        Duration delay = backoff.delay(attempt);
        synchronized (lock) {
            if (state instanceof State.Stopped) {
                return;
            }
            state = new State.Restarting(attempt, System.nanoTime() + delay.toNanos(), why);
            restarter = Thread.ofVirtual().name("mcp-restart-" + settings.name()).start(() -> {
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    return;
                }
                synchronized (lock) {
                    if (!(state instanceof State.Restarting r) || r.attempt() != attempt) {
                        return;
                    }
                    state = new State.Connecting(attempt);
                }
                connect(attempt);
            });
        }
    }

    /** Calls {@code remote} on the current connection, or explains why the server cannot take calls now. */
    ToolResult call(String remote, String exposed, JsonNode args, ToolContext context) {
        State now = state();
        return switch (now) {
            case State.Ready ready -> invoke(ready, remote, exposed, args, context);
            case State.Restarting r -> ToolResult.error("mcp - server '" + settings.name() + "' is restarting (attempt " + r.attempt()
                    + ", next in " + readable(Duration.ofNanos(Math.max(0, r.nextAtNanos() - System.nanoTime()))) + "); '" + exposed
                    + "' was not run. Last failure: " + r.why());
            case State.Connecting c -> ToolResult.error("mcp - server '" + settings.name() + "' is " + (c.attempt() == 0 ? "starting"
                    : "restarting (attempt " + c.attempt() + ", connecting now)") + "; '" + exposed + "' was not run");
            case State.Stopped s -> ToolResult.error("mcp - server '" + settings.name() + "' is stopped; '" + exposed + "' was not run");
        };
    }

    private ToolResult invoke(State.Ready ready, String remote, String exposed, JsonNode args, ToolContext context) {
        @SuppressWarnings("unchecked")
        Map<String, Object> arguments = JSON.convertValue(args, Map.class);
        long start = System.nanoTime();
        CompletableFuture<McpSchema.CallToolResult> future = ready.client().callTool(new McpSchema.CallToolRequest(remote, arguments))
                .toFuture();
        Runnable cancel = () -> future.cancel(true);
        context.interrupt().onRaise(cancel);
        try {
            McpSchema.CallToolResult result = future.get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
            log.debug("mcp - '{}' answered in {} ms (error {})", exposed, Texts.number(elapsedMs(start)), result.isError());
            return McpResults.render(result, exposed);
        } catch (TimeoutException e) {
            future.cancel(true);
            return ToolResult.error("mcp - server '" + settings.name() + "' did not answer '" + remote + "' within "
                    + Texts.number(settings.timeout().toMillis()) + " ms");
        } catch (CancellationException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return ToolResult.interrupted("the call of '" + exposed + "' was cancelled after " + Texts.number(elapsedMs(start)) + " ms ("
                    + context.interrupt().reason() + ")");
        } catch (ExecutionException e) {
            return failed(ready, remote, e.getCause());
        } finally {
            context.interrupt().forget(cancel);
        }
    }

    private ToolResult failed(State.Ready ready, String remote, Throwable cause) {
        if (cause instanceof McpError error && error.getJsonRpcError() != null) {
            return ToolResult.error("mcp - server '" + settings.name() + "' rejected '" + remote + "' (JSON-RPC error "
                    + error.getJsonRpcError().code() + ": " + Texts.line(error.getJsonRpcError().message(), 300) + ")");
        }
        String why = describe(cause);
        if (!settings.stdio()) {
            lost(ready.generation(), "a call failed (" + why + ")");
        }
        return ToolResult.error("mcp - server '" + settings.name() + "' failed during '" + remote + "' (" + why + "); it is being reconnected");
    }

    void stop() {
        McpAsyncClient client = null;
        synchronized (lock) {
            if (state instanceof State.Ready ready) {
                client = ready.client();
            }
            state = new State.Stopped();
            if (restarter != null) {
                restarter.interrupt();
            }
        }
        closeQuietly(client);
    }

    private void closeQuietly(McpAsyncClient client) {
        if (client == null) {
            return;
        }
        try {
            client.closeGracefully().block(Duration.ofSeconds(2));
        } catch (RuntimeException e) {
            log.debug("mcp - server '{}' did not close gracefully: {}", settings.name(), e.toString());
        }
        try {
            client.close();
        } catch (RuntimeException e) {
            log.debug("mcp - server '{}' close failed: {}", settings.name(), e.toString());
        }
    }

    /** A failure's message without secrets: the exception type and message of the root cause, clipped. */
    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + Texts.line(message, 200));
    }

    static String readable(Duration d) {
        long ms = d.toMillis();
        return ms >= 1_000 ? (ms + 999) / 1_000 + " s" : ms + " ms";
    }

    private static long elapsedMs(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
