package dev.herald.platforms.slack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.retry.Backoff;
import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.common.ConnectionLoop;
import dev.herald.platforms.common.WebSocketSession;
import dev.herald.platforms.common.WebSocketSession.Closed;
import dev.herald.platforms.common.WebSocketSession.Failed;
import dev.herald.platforms.common.WebSocketSession.Incoming;
import dev.herald.platforms.common.WebSocketSession.Text;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slack Socket Mode: a WebSocket whose URL comes from {@code apps.connections.open}, carrying envelopes that
 * must each be acknowledged by {@code envelope_id}.
 *
 * <p>Concurrency: one supervisor thread owns the lifecycle (open, replace, back off, ping, idle check);
 * each connection has its own reader thread that hands envelopes to the {@link Handler} in order. When
 * Slack sends {@code disconnect} (refresh_requested, warning), the supervisor opens the new connection
 * first and closes the old one only after the new one said {@code hello}, so nothing is dropped in the
 * gap; for that short overlap two readers may call the handler at the same time. A connection that closes,
 * breaks, or stays silent (no frame, not even a pong to Herald's pings) past the idle timeout is replaced
 * after the core's {@link Backoff}. A rejected token, or Socket Mode switched off for the app
 * ({@code link_disabled}), ends the loop through {@link Handler#failed}.
 */
final class SocketModeClient {
    private static final Logger log = LoggerFactory.getLogger(SocketModeClient.class);

    /** Where envelopes and connection changes go. */
    interface Handler {
        /** Called once per connection attempt before it opens (e.g. to learn the bot's identity); may throw like the Web API. */
        void beforeConnect();

        /** One envelope, on its connection's reader thread; {@code ack} acknowledges it on that connection. */
        void envelope(JsonNode envelope, Runnable ack);

        void connection(ConnectionState state, String detail);

        void failed(String message);
    }

    private enum End { REFRESH, LOST, FATAL }

    private record Ending(End kind, String detail) {
    }

    private final SlackSettings.Timing timing;
    private final SlackWebApi web;
    private final HttpClient http;
    private final ObjectMapper json;
    private final Handler handler;
    private final ConnectionLoop supervisor;
    private volatile Connection current;

    SocketModeClient(SlackSettings.Timing timing, SlackWebApi web, HttpClient http, ObjectMapper json, Handler handler) {
        this.timing = timing;
        this.web = web;
        this.http = http;
        this.json = json;
        this.handler = handler;
        this.supervisor = new ConnectionLoop("slack-socket-mode", "slack - the socket mode loop", log, handler::failed);
    }

    void start() {
        supervisor.start(this::run);
    }

    /** Stops the supervisor, then closes the connection it left (so one it was just opening is closed too). */
    void close() {
        supervisor.stop(() -> { });
        Connection c = current;
        if (c != null) {
            c.close("herald stopping");
        }
    }

    private void run() {
        Backoff backoff = timing.backoff();
        while (!supervisor.stopping()) {
            Connection next;
            try {
                handler.beforeConnect();
                next = connect();
            } catch (IllegalStateException fatal) {
                stopWith(fatal.getMessage());
                return;
            } catch (SlackWebApi.SlackCallException | IOException e) {
                if (!pause(backoff, e.getMessage())) {
                    return;
                }
                continue;
            }
            Connection old = current;
            current = next;
            if (old != null) {
                old.close("replaced by a new connection");
            }
            backoff.reset();
            handler.connection(ConnectionState.CONNECTED, "socket mode; " + next.hello);
            Ending end = watch(next);
            if (supervisor.stopping()) {
                return;
            }
            switch (end.kind()) {
                case FATAL -> {
                    next.close("socket mode disabled");
                    current = null;
                    stopWith(end.detail());
                    return;
                }
                case REFRESH -> log.info("slack - {}; opening a new connection before closing this one", end.detail());
                case LOST -> {
                    next.close("lost");
                    current = null;
                    if (!pause(backoff, end.detail())) {
                        return;
                    }
                }
            }
        }
    }

    /** Opens a Socket Mode connection and waits for its {@code hello}. */
    private Connection connect() throws IOException {
        URI url = web.openConnection();
        handler.connection(ConnectionState.CONNECTING, "opening socket mode connection");
        WebSocketSession ws = WebSocketSession.open(http, url, timing.connectTimeout());
        Connection c = new Connection(ws);
        c.start();
        try {
            c.hello = c.helloSeen.get(timing.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
            return c;
        } catch (TimeoutException e) {
            c.close("no hello");
            throw new IOException("no hello on the socket mode connection within " + timing.connectTimeout().toMillis() + " ms");
        } catch (ExecutionException e) {
            c.close("ended before hello");
            throw new IOException("the socket mode connection ended before hello (" + e.getCause().getMessage() + ")");
        } catch (InterruptedException e) {
            c.close("interrupted");
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting");
        }
    }

    /** Pings the connection and waits until it ends, or until it has been silent past the idle timeout. */
    private Ending watch(Connection c) {
        Duration ping = timing.pingInterval();
        while (!supervisor.stopping()) {
            try {
                return c.ended.get(ping.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                long silent = c.ws.silentForMillis();
                if (silent > timing.idleTimeout().toMillis()) {
                    return new Ending(End.LOST, "socket mode connection silent for " + silent + " ms");
                }
                c.ws.ping();
            } catch (ExecutionException e) {
                return new Ending(End.LOST, "socket mode reader failed (" + e.getCause() + ")");
            } catch (InterruptedException e) {
                return new Ending(End.LOST, "interrupted");
            }
        }
        return new Ending(End.LOST, "stopping");
    }

    /** Reports the drop and sleeps the next backoff; false when stopping. */
    private boolean pause(Backoff backoff, String why) {
        Duration wait = backoff.next();
        // the gateway logs every connection change, so this is the one report of the drop
        handler.connection(ConnectionState.BACKING_OFF, why + "; reconnecting in " + wait.toMillis() + " ms (attempt "
                + backoff.attempts() + ")");
        return supervisor.pause(wait);
    }

    private void stopWith(String message) {
        log.error(message);
        handler.failed(message);
    }

    /** One Socket Mode WebSocket and its reader thread. */
    private final class Connection {
        final WebSocketSession ws;
        final CompletableFuture<String> helloSeen = new CompletableFuture<>();
        final CompletableFuture<Ending> ended = new CompletableFuture<>();
        volatile String hello = "";
        private volatile boolean closed;

        Connection(WebSocketSession ws) {
            this.ws = ws;
        }

        void start() {
            Thread.ofVirtual().name("slack-socket-reader").start(this::read);
        }

        void close(String why) {
            closed = true;
            ended.complete(new Ending(End.LOST, why));
            ws.close(1000, why);
        }

        private void read() {
            try {
                while (!closed) {
                    Incoming in = ws.next(Duration.ofSeconds(1));
                    if (in == null) {
                        continue;
                    }
                    if (!(in instanceof Text t)) {
                        end(in);
                        return;
                    }
                    onText(t.text());
                }
            } catch (InterruptedException e) {
                ended.complete(new Ending(End.LOST, "interrupted"));
            }
        }

        private void onText(String text) {
            JsonNode n;
            try {
                n = json.readTree(text);
            } catch (IOException e) {
                log.debug("slack - ignored a socket mode frame that is not JSON ({} chars)", text.length());
                return;
            }
            String type = n.path("type").asText("");
            switch (type) {
                case "hello" -> helloSeen.complete(n.path("num_connections").asInt(1) + " connection(s) open");
                case "disconnect" -> {
                    String reason = n.path("reason").asText("unknown");
                    ended.complete("link_disabled".equals(reason)
                            ? new Ending(End.FATAL, "slack - Socket Mode is switched off for this app (disconnect: link_disabled); "
                                    + "enable it under Settings > Socket Mode")
                            : new Ending(End.REFRESH, "Slack asked for a new connection (disconnect: " + reason + ")"));
                }
                default -> {
                    String id = n.path("envelope_id").asText("");
                    if (!id.isEmpty()) {
                        envelope(n, id);
                    }
                }
            }
        }

        /** Hands one envelope on; one Herald cannot read is logged and acknowledged, so Slack does not redeliver it forever. */
        private void envelope(JsonNode n, String id) {
            Runnable ack = () -> ws.send("{\"envelope_id\":" + quote(id) + "}");
            try {
                handler.envelope(n, ack);
            } catch (RuntimeException e) {
                log.warn("slack - acknowledged and dropped an envelope Herald cannot read ({})", e.toString());
                ack.run();
            }
        }

        private void end(Incoming in) {
            String why = in instanceof Closed c ? "socket mode connection closed (close " + c.code() + ")"
                    : "socket mode connection lost (" + (in instanceof Failed f ? f.error().getClass().getSimpleName() : "?") + ")";
            helloSeen.completeExceptionally(new IOException(why));
            ended.complete(new Ending(End.LOST, why));
        }

        private String quote(String s) {
            return json.getNodeFactory().textNode(s).toString();
        }
    }
}
