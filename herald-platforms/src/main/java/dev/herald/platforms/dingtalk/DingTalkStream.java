package dev.herald.platforms.dingtalk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.ConnectionLoop;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.WebSocketSession;
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
 * DingTalk's Stream mode: {@code gateway/connections/open} gives an endpoint and a single-use ticket, Herald opens a
 * WebSocket to {@code endpoint?ticket=}, and DingTalk sends JSON frames {@code {specVersion, type, headers, data}}
 * ({@code type} SYSTEM, EVENT or CALLBACK; {@code headers.messageId} and {@code headers.topic}; {@code data} a JSON
 * string). Each frame is answered on the same connection by {@code {code: 200, headers: {contentType, messageId},
 * message: "OK", data}} with its messageId: a SYSTEM {@code ping} with its own data echoed, an EVENT with status
 * SUCCESS, a robot message (CALLBACK on {@value DingTalkApi#BOT_TOPIC}) only when the {@link Handler} says so.
 *
 * <p>SYSTEM {@code disconnect} (DingTalk is about to close the connection) is acknowledged, then the supervisor opens
 * a new connection with a new ticket first and closes the old one after. A connection that closes, breaks or hears
 * nothing (DingTalk pings every few seconds) past the idle timeout is replaced after the core's {@link Backoff}.
 * Credentials that DingTalk refuses end the loop through {@link Handler#failed}.
 */
final class DingTalkStream {
    private static final Logger log = LoggerFactory.getLogger(DingTalkStream.class);

    /** Where robot messages and connection changes go. */
    interface Handler {
        /** One robot message ({@code data} parsed), on its connection's reader thread; {@code ack} answers it 200. */
        void robotMessage(JsonNode data, Runnable ack);

        void connection(ConnectionState state, String detail);

        void failed(String message);
    }

    private enum End { REFRESH, LOST }

    private final DingTalkSettings.Timing timing;
    private final DingTalkApi api;
    private final HttpClient http;
    private final Handler handler;
    private final ConnectionLoop supervisor;
    private volatile Connection current;

    DingTalkStream(DingTalkSettings.Timing timing, DingTalkApi api, HttpClient http, Handler handler) {
        this.timing = timing;
        this.api = api;
        this.http = http;
        this.handler = handler;
        this.supervisor = new ConnectionLoop("dingtalk-stream", "dingtalk - the stream loop", log, handler::failed);
    }

    void start() {
        supervisor.start(this::run);
    }

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
                handler.connection(ConnectionState.CONNECTING, "opening a stream connection");
                URI url = api.openConnection();
                next = new Connection(WebSocketSession.open(http, url, timing.connectTimeout()));
                next.start();
            } catch (DingTalkApi.Refused refused) {
                log.error(refused.getMessage());
                handler.failed(refused.getMessage());
                return;
            } catch (IOException e) {
                if (!pause(backoff, api.describe(e))) {
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
            handler.connection(ConnectionState.CONNECTED, "stream mode");
            End end = watch(next);
            if (supervisor.stopping()) {
                return;
            }
            if (end == End.REFRESH) {
                log.info("dingtalk - DingTalk asked to reconnect (disconnect); opening a new connection before closing this one");
                continue;
            }
            next.close("lost");
            current = null;
            if (!pause(backoff, next.why)) {
                return;
            }
        }
    }

    /**
     * Waits until the connection ends, or until it has been silent past the idle timeout; after a third of that silence
     * Herald pings the connection every second, and any answer counts as heard.
     */
    private End watch(Connection c) {
        while (!supervisor.stopping()) {
            try {
                return c.ended.get(1, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                long silent = c.ws.silentForMillis();
                if (silent > timing.idleTimeout().toMillis()) {
                    c.why = "stream connection silent for " + silent + " ms";
                    return End.LOST;
                }
                if (silent > timing.idleTimeout().toMillis() / 3) {
                    c.ws.ping(); // DingTalk's own pings stopped for a while: ask for a pong before giving up on the connection
                }
            } catch (ExecutionException | InterruptedException e) {
                c.why = "stream reader ended";
                return End.LOST;
            }
        }
        return End.LOST;
    }

    private boolean pause(Backoff backoff, String why) {
        Duration wait = backoff.next();
        handler.connection(ConnectionState.BACKING_OFF, why + "; reconnecting in " + wait.toMillis() + " ms (attempt " + backoff.attempts() + ")");
        return supervisor.pause(wait);
    }

    /** The answer to frame {@code messageId}: code 200 with {@code data}. */
    static String ack(String messageId, String data) {
        ObjectNode n = JsonHttp.JSON.createObjectNode().put("code", 200);
        n.putObject("headers").put("contentType", "application/json").put("messageId", messageId);
        n.put("message", "OK").put("data", data);
        return n.toString();
    }

    /** One Stream WebSocket and its reader thread. */
    private final class Connection {
        final WebSocketSession ws;
        final CompletableFuture<End> ended = new CompletableFuture<>();
        volatile String why = "stream connection lost";
        private volatile boolean closed;

        Connection(WebSocketSession ws) {
            this.ws = ws;
        }

        void start() {
            Thread.ofVirtual().name("dingtalk-stream-reader").start(this::read);
        }

        void close(String reason) {
            closed = true;
            ended.complete(End.LOST);
            ws.close(1000, reason);
        }

        private void read() {
            try {
                while (!closed) {
                    WebSocketSession.Incoming in = ws.next(Duration.ofSeconds(1));
                    if (in == null) {
                        continue;
                    }
                    if (!(in instanceof WebSocketSession.Text t)) {
                        why = in instanceof WebSocketSession.Closed c ? "stream connection closed (close " + c.code() + ")"
                                : "stream connection broke";
                        ended.complete(End.LOST);
                        return;
                    }
                    try {
                        onFrame(t.text());
                    } catch (RuntimeException e) {
                        log.warn("dingtalk - a stream frame could not be handled ({}); dropped", e.getClass().getSimpleName());
                    }
                }
            } catch (InterruptedException e) {
                ended.complete(End.LOST);
            }
        }

        private void onFrame(String text) {
            Frame f = Frame.parse(text);
            if (f == null) {
                log.warn("dingtalk - ignored a stream frame that is not a DingTalk frame ({} chars)", text.length());
                return;
            }
            switch (f.type()) {
                case "SYSTEM" -> {
                    ws.send(ack(f.messageId(), f.data()));
                    if ("disconnect".equals(f.topic())) {
                        ended.complete(End.REFRESH);
                    } else if (!"ping".equals(f.topic())) {
                        log.debug("dingtalk - system frame {} acknowledged", f.topic());
                    }
                }
                case "CALLBACK" -> {
                    if (!DingTalkApi.BOT_TOPIC.equals(f.topic())) {
                        ws.send(ack(f.messageId(), "{\"response\":null}"));
                        log.debug("dingtalk - callback {} acknowledged and ignored", f.topic());
                        return;
                    }
                    JsonNode data = f.json();
                    if (data == null || !data.isObject()) {
                        ws.send(ack(f.messageId(), "{\"response\":null}"));
                        log.warn("dingtalk - a robot message whose data is not a JSON object was acknowledged and dropped");
                        return;
                    }
                    handler.robotMessage(data, () -> ws.send(ack(f.messageId(), "{\"response\":null}")));
                }
                default -> {
                    ws.send(ack(f.messageId(), "{\"status\":\"SUCCESS\",\"message\":\"success\"}"));
                    log.debug("dingtalk - {} frame {} acknowledged and ignored", f.type(), f.topic());
                }
            }
        }
    }
}
