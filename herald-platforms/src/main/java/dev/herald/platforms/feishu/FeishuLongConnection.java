package dev.herald.platforms.feishu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.ConnectionLoop;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open platform's long connection ("使用长连接接收事件"), as its SDKs speak it: {@code POST /callback/ws/endpoint}
 * with the App ID and App Secret answers a WebSocket URL (whose {@code service_id} the pings name) and a client
 * configuration ({@code PingInterval}, {@code ReconnectCount}, {@code ReconnectInterval}, {@code ReconnectNonce}, in
 * seconds); Herald connects and exchanges binary {@link FeishuFrame}s.
 *
 * <p>Herald sends a control frame {@code ping} every ping interval; the platform's {@code pong} may carry a new
 * configuration, whose ping interval is taken. A data frame ({@code event} or {@code card}) carries an event's JSON,
 * possibly split into {@code sum} parts numbered by {@code seq} under one {@code message_id}, which are joined here
 * (parts of an event not complete within {@link #PARTS_TTL} are dropped; the platform delivers it again). A whole
 * event goes to the {@link Handler}, and the frame is answered with the same frame whose payload is
 * {@code {"code": 200}} (or 500 when the event was not taken, 400 when it is not an event), with a {@code biz_rt} header
 * added and any answer data Base64-encoded in {@code data}. A frame that is not a pbbp2 frame is logged, naming what is
 * wrong, and dropped: the messages after it are read as usual.
 *
 * <p>A connection that closes, breaks or hears nothing for three ping intervals is replaced after the core's
 * {@link Backoff}; Herald reconnects for as long as it runs (the configuration's {@code ReconnectCount} is not a cap
 * here). An endpoint answer that refuses the credentials (code 514, 403, 10003, 10014) stops the loop through
 * {@link Handler#failed}.
 */
final class FeishuLongConnection {
    private static final Logger log = LoggerFactory.getLogger(FeishuLongConnection.class);
    /** How long the parts of a split event wait for the rest. */
    static final Duration PARTS_TTL = Duration.ofSeconds(30);
    private static final int MAX_PARTS = 64;
    private static final int MAX_PENDING = 128;

    /** What the platform's answer to one event says: a code (200, 400, 500) and optional JSON data. */
    record Answer(int code, String data) {
    }

    interface Handler {
        /** One whole event's JSON, on the connection's reader thread. */
        Answer event(byte[] json);

        void connection(ConnectionState state, String detail);

        void failed(String message);
    }

    private final FeishuApi api;
    private final FeishuSettings.Timing timing;
    private final HttpClient http;
    private final Handler handler;
    private final ConnectionLoop loop;
    private volatile FeishuSocket current;

    FeishuLongConnection(FeishuApi api, FeishuSettings.Timing timing, HttpClient http, Handler handler) {
        this.api = api;
        this.timing = timing;
        this.http = http;
        this.handler = handler;
        this.loop = new ConnectionLoop("feishu-long-connection", "feishu - the long connection loop", log, handler::failed);
    }

    void start() {
        loop.start(this::run);
    }

    void close() {
        loop.stop(() -> {
            FeishuSocket s = current;
            if (s != null) {
                s.close("herald stopping");
            }
        });
    }

    private void run() {
        Backoff backoff = new Backoff(timing.reconnectInitial(), timing.reconnectMax());
        while (!loop.stopping()) {
            FeishuApi.Endpoint endpoint;
            FeishuSocket socket;
            try {
                handler.connection(ConnectionState.CONNECTING, "asking for a long-connection endpoint");
                endpoint = api.wsEndpoint();
                socket = FeishuSocket.open(http, endpoint.url(), timing.connectTimeout());
            } catch (FeishuApi.EndpointRefused e) {
                log.error(e.getMessage());
                handler.failed(e.getMessage());
                return;
            } catch (IOException e) {
                if (!pause(backoff, api.describe(e))) {
                    return;
                }
                continue;
            }
            current = socket;
            backoff.reset();
            handler.connection(ConnectionState.CONNECTED, "long connection (ping every " + endpoint.pingInterval().toSeconds() + " s)");
            String why = new Session(socket, endpoint).serve();
            socket.close("reconnecting");
            current = null;
            if (loop.stopping() || !pause(backoff, why)) {
                return;
            }
        }
    }

    private boolean pause(Backoff backoff, String why) {
        Duration wait = backoff.next();
        handler.connection(ConnectionState.BACKING_OFF, why + "; reconnecting in " + wait.toMillis() + " ms (attempt " + backoff.attempts() + ")");
        return loop.pause(wait);
    }

    /** One connection: its reader, its pings and the parts of split events it has seen. */
    private final class Session {
        private final FeishuSocket socket;
        private final int service;
        private final Map<String, Parts> pending = new LinkedHashMap<>();
        private volatile Duration pingInterval;

        Session(FeishuSocket socket, FeishuApi.Endpoint endpoint) {
            this.socket = socket;
            this.service = endpoint.serviceId();
            this.pingInterval = endpoint.pingInterval();
        }

        /** Reads until the connection ends; returns why it ended. */
        String serve() {
            long nextPing = System.nanoTime();
            try {
                while (!loop.stopping()) {
                    long now = System.nanoTime();
                    if (now - nextPing >= 0) {
                        socket.send(FeishuFrame.control(service, "ping", new byte[0]).encode());
                        nextPing = now + pingInterval.toNanos();
                    }
                    long silent = socket.silentForMillis();
                    if (silent > pingInterval.toMillis() * 3) {
                        return "the long connection was silent for " + silent + " ms (three ping intervals)";
                    }
                    FeishuSocket.Incoming in = socket.next(Duration.ofNanos(Math.max(1_000_000, Math.min(nextPing - now, 1_000_000_000L))));
                    switch (in) {
                        case null -> { }
                        case FeishuSocket.Ended e -> {
                            return e.code() < 0 ? "the long connection broke (" + e.reason() + ")" : "the long connection was closed (close " + e.code() + ")";
                        }
                        case FeishuSocket.Text t -> log.warn("feishu - a text message on the long connection ({} chars), where only binary "
                                + "pbbp2 frames are expected; dropped", t.text().length());
                        case FeishuSocket.Binary b -> onFrame(b.bytes());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "herald stopping";
        }

        private void onFrame(byte[] bytes) {
            FeishuFrame f;
            try {
                f = FeishuFrame.decode(bytes);
            } catch (FeishuFrame.Malformed e) {
                log.warn("feishu - a long-connection frame that is not a pbbp2 frame ({} bytes: {}); dropped, the connection goes on", bytes.length,
                        e.getMessage());
                return;
            }
            String type = f.header("type");
            if (f.method() == FeishuFrame.CONTROL) {
                if (type.equals("pong")) {
                    pong(f.payload());
                }
                return;
            }
            if (!type.equals("event") && !type.equals("card")) {
                log.debug("feishu - a data frame of type {} ignored", FeishuEvents.clip(type));
                return;
            }
            byte[] whole = join(f);
            if (whole == null) {
                return;
            }
            long started = System.nanoTime();
            Answer a;
            try {
                a = handler.event(whole);
            } catch (RuntimeException e) {
                log.warn("feishu - event {} could not be handled ({}); answered 500", FeishuEvents.clip(f.header("message_id")), e.getClass().getSimpleName());
                a = new Answer(500, null);
            }
            ObjectNode payload = JsonHttp.JSON.createObjectNode().put("code", a.code());
            if (a.data() != null) {
                payload.put("data", Base64.getEncoder().encodeToString(a.data().getBytes(StandardCharsets.UTF_8)));
            }
            long ms = (System.nanoTime() - started) / 1_000_000;
            socket.send(f.answer(payload.toString().getBytes(StandardCharsets.UTF_8), "biz_rt", Long.toString(ms)).encode());
        }

        /** The whole event once every part of it came; null while parts are missing or when the frame's numbering is wrong. */
        private byte[] join(FeishuFrame f) {
            String id = f.header("message_id");
            int sum = number(f.header("sum"), 1);
            int seq = number(f.header("seq"), 0);
            if (sum == 1 && seq == 0) {
                return f.payload();
            }
            if (id.isEmpty() || sum < 1 || sum > MAX_PARTS || seq < 0 || seq >= sum) {
                log.warn("feishu - a data frame with message_id \"{}\", sum {} and seq {} cannot be joined (sum 1-{}, seq below sum); dropped",
                        FeishuEvents.clip(id), FeishuEvents.clip(f.header("sum")), FeishuEvents.clip(f.header("seq")), MAX_PARTS);
                return null;
            }
            long now = System.nanoTime();
            for (Iterator<Parts> it = pending.values().iterator(); it.hasNext(); ) {
                Parts p = it.next();
                if (now - p.since > PARTS_TTL.toNanos()) {
                    log.warn("feishu - event {} got {} of its {} parts in {} s; dropped (the platform delivers it again)", p.id, p.got, p.parts.length,
                            PARTS_TTL.toSeconds());
                    it.remove();
                }
            }
            Parts p = pending.get(id);
            if (p == null || p.parts.length != sum) {
                if (pending.size() >= MAX_PENDING) {
                    Iterator<Parts> oldest = pending.values().iterator();
                    oldest.next();
                    oldest.remove();
                }
                p = new Parts(id, sum, now);
                pending.put(id, p);
            }
            if (p.parts[seq] == null) {
                p.parts[seq] = f.payload();
                p.got++;
            }
            if (p.got < sum) {
                return null;
            }
            pending.remove(id);
            int size = 0;
            for (byte[] part : p.parts) {
                size += part.length;
            }
            byte[] all = new byte[size];
            int at = 0;
            for (byte[] part : p.parts) {
                System.arraycopy(part, 0, all, at, part.length);
                at += part.length;
            }
            return all;
        }

        private void pong(byte[] payload) {
            if (payload.length == 0) {
                return;
            }
            try {
                JsonNode c = JsonHttp.JSON.readTree(payload);
                long seconds = c.path("PingInterval").asLong(0);
                if (seconds > 0 && seconds <= 3600) {
                    pingInterval = Duration.ofSeconds(seconds);
                }
            } catch (IOException e) {
                log.debug("feishu - a pong whose configuration is not JSON; kept the ping interval");
            }
        }

        private static int number(String s, int absent) {
            if (s.isEmpty()) {
                return absent;
            }
            try {
                return Integer.parseInt(s);
            } catch (NumberFormatException e) {
                return -1;
            }
        }
    }

    /** The parts of one split event seen so far. */
    private static final class Parts {
        final String id;
        final byte[][] parts;
        final long since;
        int got;

        Parts(String id, int sum, long since) {
            this.id = id;
            this.parts = new byte[sum][];
            this.since = since;
        }
    }
}
