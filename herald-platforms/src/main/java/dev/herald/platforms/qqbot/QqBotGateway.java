package dev.herald.platforms.qqbot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.ConnectionLoop;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlatformIds;
import dev.herald.platforms.common.WebSocketSession;
import dev.herald.platforms.common.WebSocketSession.Closed;
import dev.herald.platforms.common.WebSocketSession.Failed;
import dev.herald.platforms.common.WebSocketSession.Incoming;
import dev.herald.platforms.common.WebSocketSession.Text;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The QQ bot WebSocket gateway, one connection on one thread ({@link ConnectionLoop}): {@code GET /gateway} for the URL,
 * HELLO (op 10), IDENTIFY (op 2, {@code token: "QQBot <access token>"}, the intents, shard [0, 1]) or RESUME (op 6), then
 * heartbeats (op 1 with the last sequence, acknowledged by op 11) and dispatches (op 0, each with its sequence {@code s}).
 * The protocol is Discord's gateway in most respects; this class follows {@code DiscordGateway}.
 *
 * <p>Resume: after a dropped connection, RECONNECT (op 7) or a heartbeat never acknowledged, the next connection sends
 * RESUME with the session id from READY and the last sequence received; QQ replays what was missed, then RESUMED.
 * INVALID_SESSION (op 9) starts a new session with IDENTIFY. A new process starts with IDENTIFY too (the session is not
 * kept across restarts); a message the old process had stored and QQ sends again is dropped by the gateway's durable
 * dedupe on its message id. Close codes: 4914 (the bot is offline or only in the sandbox) and 4915 (banned) end the loop;
 * 4004 (bad token) fetches a new access token and identifies; 4006, 4007 and 4900-4913 identify; others resume.
 */
final class QqBotGateway {
    private static final Logger log = LoggerFactory.getLogger(QqBotGateway.class);

    /** GROUP_AND_C2C_EVENT (1 << 25): one-to-one messages and group @-messages. */
    static final int INTENTS = 1 << 25;
    static final int OP_DISPATCH = 0;
    static final int OP_HEARTBEAT = 1;
    static final int OP_IDENTIFY = 2;
    static final int OP_RESUME = 6;
    static final int OP_RECONNECT = 7;
    static final int OP_INVALID_SESSION = 9;
    static final int OP_HELLO = 10;
    static final int OP_HEARTBEAT_ACK = 11;
    private static final int CLOSE_TO_RESUME = 4000;

    /** Where the gateway reports what happens. Called on the gateway loop: implementations must not block. */
    interface Handler {
        void dispatch(String type, JsonNode data);

        void connection(ConnectionState state, String detail);

        /** The gateway gave up for good; {@code message} is for the operator. */
        void failed(String message);
    }

    private enum Next { RESUME, IDENTIFY, IDENTIFY_LATER, NEW_TOKEN, GIVE_UP, STOPPED }

    private record Ending(Next next, String detail, boolean healthy) {
    }

    private final QqBotApi api;
    private final QqBotSettings.Timing timing;
    private final HttpClient http;
    private final Handler handler;
    // session state: written only by the gateway loop
    private String sessionId;
    private long seq = -1;
    private long resumedFromSeq = -1;
    private int replayed;
    private final ConnectionLoop loop;
    private volatile WebSocketSession current;

    QqBotGateway(QqBotApi api, QqBotSettings.Timing timing, HttpClient http, Handler handler) {
        this.api = api;
        this.timing = timing;
        this.http = http;
        this.handler = handler;
        this.loop = new ConnectionLoop("qqbot-gateway", "qqbot - the gateway loop", log, handler::failed);
    }

    void start() {
        loop.start(this::run);
    }

    /** Closes the connection with 1000 and stops the loop. Idempotent. */
    void close() {
        loop.stop(() -> {
            WebSocketSession ws = current;
            if (ws != null) {
                ws.close(1000, "herald stopping");
            }
        });
    }

    private void run() {
        Backoff backoff = timing.backoff();
        while (!loop.stopping()) {
            Ending e = connectOnce();
            if (loop.stopping() || e.next() == Next.STOPPED) {
                return;
            }
            if (e.next() == Next.GIVE_UP) {
                log.error(e.detail());
                handler.failed(e.detail());
                return;
            }
            if (e.next() != Next.RESUME) {
                sessionId = null;
                seq = -1;
            }
            if (e.healthy()) {
                backoff.reset();
            }
            Duration wait = e.next() == Next.IDENTIFY_LATER ? invalidSessionWait() : backoff.next();
            String then = sessionId != null ? "resuming" : "identifying";
            handler.connection(ConnectionState.BACKING_OFF, e.detail() + "; " + then + " in " + wait.toMillis() + " ms (attempt "
                    + Math.max(1, backoff.attempts()) + ")");
            if (!loop.pause(wait)) {
                return;
            }
        }
    }

    private Ending connectOnce() {
        boolean resuming = sessionId != null;
        handler.connection(ConnectionState.CONNECTING, resuming ? "resuming session at seq " + seq : "identifying");
        WebSocketSession ws = null;
        try {
            String token = api.token();
            URI uri = URI.create(api.gatewayUrl());
            ws = WebSocketSession.open(http, uri, timing.connectTimeout());
            current = ws;
            return converse(ws, resuming, token);
        } catch (QqBotApi.TokenRefused e) {
            return new Ending(Next.GIVE_UP, "qqbot - " + e.getMessage(), false);
        } catch (IOException | IllegalArgumentException e) {
            return new Ending(Next.RESUME, String.valueOf(e.getMessage()), false);
        } catch (InterruptedException e) {
            return new Ending(Next.STOPPED, "interrupted", false);
        } finally {
            current = null;
            if (ws != null) {
                ws.close();
            }
        }
    }

    /** One connection from HELLO to its end; returns what to do next. */
    private Ending converse(WebSocketSession ws, boolean resuming, String token) throws InterruptedException {
        Incoming first = ws.next(timing.connectTimeout());
        JsonNode hello = first instanceof Text t ? parse(t.text()) : null;
        if (hello == null || hello.path("op").asInt(-1) != OP_HELLO) {
            return first instanceof Text || first == null
                    ? new Ending(Next.RESUME, "no HELLO within " + timing.connectTimeout().toMillis() + " ms", false)
                    : ended(first, false);
        }
        long interval = Math.max(50, hello.path("d").path("heartbeat_interval").asLong(41_250));
        resumedFromSeq = seq;
        replayed = 0;
        ws.send(resuming ? resume(token) : identify(token));
        Heartbeat beat = new Heartbeat(interval);
        boolean healthy = false;
        while (!loop.stopping()) {
            Incoming in = ws.next(beat.untilDue());
            if (in == null) {
                if (beat.awaitingAck) {
                    ws.close(CLOSE_TO_RESUME, "heartbeat not acknowledged");
                    return new Ending(Next.RESUME, "no heartbeat ACK within " + interval + " ms", healthy);
                }
                ws.send(heartbeat());
                beat.sent();
                continue;
            }
            if (!(in instanceof Text text)) {
                return ended(in, healthy);
            }
            JsonNode p = parse(text.text());
            if (p == null) {
                continue;
            }
            switch (p.path("op").asInt(-1)) {
                case OP_DISPATCH -> healthy |= dispatchGuarded(p);
                case OP_HEARTBEAT -> ws.send(heartbeat());
                case OP_HEARTBEAT_ACK -> beat.awaitingAck = false;
                case OP_RECONNECT -> {
                    ws.close(CLOSE_TO_RESUME, "reconnect requested");
                    return new Ending(Next.RESUME, "QQ asked for a reconnect (op 7)", healthy);
                }
                case OP_INVALID_SESSION -> {
                    ws.close(CLOSE_TO_RESUME, "invalid session");
                    return new Ending(Next.IDENTIFY_LATER, "session invalidated (op 9)", healthy);
                }
                default -> {
                    // op codes a bot does not receive (13 is for webhooks), or new ones: ignored
                }
            }
        }
        return new Ending(Next.STOPPED, "stopping", healthy);
    }

    /** {@link #onDispatch}, except that a dispatch Herald cannot read is logged and passed over. */
    private boolean dispatchGuarded(JsonNode p) {
        try {
            return onDispatch(p);
        } catch (RuntimeException e) {
            log.warn("qqbot - ignored a {} dispatch Herald cannot read ({})",
                    Objects.requireNonNullElse(PlatformIds.clean(p.path("t").asText("")), "unnamed"), e.toString());
            return false;
        }
    }

    /** Handles one dispatch; true when it completed a handshake (READY or RESUMED). */
    private boolean onDispatch(JsonNode p) {
        if (p.hasNonNull("s") && p.get("s").canConvertToLong()) {
            seq = p.get("s").asLong();
        }
        String type = p.path("t").asText("");
        JsonNode d = p.path("d");
        boolean handshake = false;
        switch (type) {
            case "READY" -> {
                sessionId = d.path("session_id").asText(null);
                String name = d.path("user").path("username").asText("bot");
                handler.connection(ConnectionState.CONNECTED, "ready as " + name);
                handshake = sessionId != null;
            }
            case "RESUMED" -> {
                handler.connection(ConnectionState.CONNECTED, "resumed from seq " + resumedFromSeq + ", " + replayed
                        + " missed event(s) replayed");
                handshake = true;
            }
            default -> replayed++;
        }
        handler.dispatch(type, d);
        return handshake;
    }

    private Ending ended(Incoming in, boolean healthy) {
        if (in instanceof Closed c) {
            String what = "connection closed (close " + c.code() + (c.reason().isBlank() ? "" : ": " + c.reason()) + ")";
            int code = c.code();
            if (code == 4914 || code == 4915) {
                return new Ending(Next.GIVE_UP, "qqbot - QQ closed the gateway for good (close " + code + ", "
                        + (code == 4914 ? "the bot is offline or limited to the sandbox: check platforms.qqbot.api_base" : "the bot is banned")
                        + ")", healthy);
            }
            if (code == 4004) {
                api.invalidate(null);
                return new Ending(Next.NEW_TOKEN, what + "; the access token was refused, fetching a new one", healthy);
            }
            if (code == 4006 || code == 4007 || code >= 4900 && code <= 4913) {
                return new Ending(Next.IDENTIFY, what + "; the session cannot be resumed", healthy);
            }
            return new Ending(Next.RESUME, what, healthy);
        }
        Throwable error = in instanceof Failed f ? f.error() : null;
        return new Ending(Next.RESUME, "connection lost (" + (error == null ? "unknown" : error.getClass().getSimpleName()) + ")", healthy);
    }

    private String identify(String token) {
        ObjectNode d = JsonHttp.JSON.createObjectNode();
        d.put("token", "QQBot " + token);
        d.put("intents", INTENTS);
        d.putArray("shard").add(0).add(1);
        ObjectNode props = d.putObject("properties");
        props.put("$os", "linux");
        props.put("$browser", "herald");
        props.put("$device", "herald");
        return payload(OP_IDENTIFY, d);
    }

    private String resume(String token) {
        ObjectNode d = JsonHttp.JSON.createObjectNode();
        d.put("token", "QQBot " + token);
        d.put("session_id", sessionId);
        d.put("seq", seq);
        return payload(OP_RESUME, d);
    }

    private String heartbeat() {
        ObjectNode p = JsonHttp.JSON.createObjectNode();
        p.put("op", OP_HEARTBEAT);
        if (seq >= 0) {
            p.put("d", seq);
        } else {
            p.putNull("d");
        }
        return p.toString();
    }

    private static String payload(int op, ObjectNode d) {
        ObjectNode p = JsonHttp.JSON.createObjectNode();
        p.put("op", op);
        p.set("d", d);
        return p.toString();
    }

    private static JsonNode parse(String text) {
        try {
            JsonNode n = JsonHttp.JSON.readTree(text);
            return n != null && n.isObject() ? n : null;
        } catch (IOException e) {
            log.debug("qqbot - ignored a gateway frame that is not JSON ({} chars)", text.length());
            return null;
        }
    }

    private Duration invalidSessionWait() {
        long min = timing.invalidSessionDelay().toMillis();
        return Duration.ofMillis(min + ThreadLocalRandom.current().nextLong(min + 1));
    }

    /** When the next heartbeat is due, and whether the last one is still unacknowledged. */
    private static final class Heartbeat {
        private final long intervalNanos;
        private long due;
        boolean awaitingAck;

        Heartbeat(long intervalMs) {
            this.intervalNanos = intervalMs * 1_000_000;
            this.due = System.nanoTime() + (long) (intervalNanos * ThreadLocalRandom.current().nextDouble());
        }

        Duration untilDue() {
            return Duration.ofNanos(Math.max(0, due - System.nanoTime()));
        }

        void sent() {
            awaitingAck = true;
            due = System.nanoTime() + intervalNanos;
        }
    }
}
