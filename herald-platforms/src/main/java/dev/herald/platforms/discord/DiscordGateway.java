package dev.herald.platforms.discord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.retry.Backoff;
import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.common.ConnectionLoop;
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
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Discord Gateway connection: HELLO, IDENTIFY or RESUME, heartbeats, dispatches, reconnection.
 *
 * <p>Concurrency: one virtual thread (the gateway loop) owns the socket and every piece of session state
 * (session id, resume URL, last sequence, heartbeat ACK); nothing else writes them. It reads frames with
 * a timeout that ends when the next heartbeat is due, so reads and heartbeats share one thread. Dispatches
 * go to the {@link Handler} in arrival order; the handler only queues them, so a slow consumer never delays
 * a heartbeat.
 *
 * <p>Resume: after a dropped connection, RECONNECT (op 7), a resumable INVALID_SESSION or a heartbeat
 * that was never ACKed, the next connection goes to {@code resume_gateway_url} and sends RESUME with the
 * session id and the last sequence received; Discord replays what was missed, then RESUMED. When a
 * connection to that URL ends without RESUMED, the next resume goes to the gateway URL instead. A
 * non-resumable INVALID_SESSION starts a new session (IDENTIFY) after 1-5 s; close codes 4003, 4007 and
 * 4009 start one at once. Final close codes (4004 bad token, 4014 disallowed intents, ...) end the loop
 * and are reported through {@link Handler#failed}. Between attempts the core's {@link Backoff} applies,
 * reset after every connection that reached READY or RESUMED.
 */
final class DiscordGateway {
    private static final Logger log = LoggerFactory.getLogger(DiscordGateway.class);

    /** GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES and the privileged MESSAGE_CONTENT. */
    static final int INTENTS = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);
    static final int OP_DISPATCH = 0;
    static final int OP_HEARTBEAT = 1;
    static final int OP_IDENTIFY = 2;
    static final int OP_RESUME = 6;
    static final int OP_RECONNECT = 7;
    static final int OP_INVALID_SESSION = 9;
    static final int OP_HELLO = 10;
    static final int OP_HEARTBEAT_ACK = 11;
    /** Sent when Herald drops a connection it means to resume: 1000 and 1001 would end the session. */
    private static final int CLOSE_TO_RESUME = 4000;

    /** Where the gateway reports what happens. Called on the gateway loop: implementations must not block. */
    interface Handler {
        void ready(String selfId, String selfName);

        void dispatch(String type, JsonNode data);

        void connection(ConnectionState state, String detail);

        /** The gateway gave up for good (bad token, disallowed intents); {@code message} is for the operator. */
        void failed(String message);
    }

    private enum Next { RESUME, IDENTIFY, IDENTIFY_LATER, GIVE_UP, STOPPED }

    private record Ending(Next next, String detail, boolean healthy) {
    }

    private final DiscordSettings settings;
    private final DiscordSettings.Timing timing;
    private final HttpClient http;
    private final ObjectMapper json;
    private final Handler handler;
    // session state: written only by the gateway loop
    private String sessionId;
    private URI resumeUrl;
    private long seq = -1;
    private long resumedFromSeq = -1;
    private int replayed;
    // lifecycle
    private final ConnectionLoop loop;
    private volatile WebSocketSession current;

    DiscordGateway(DiscordSettings settings, DiscordSettings.Timing timing, HttpClient http, ObjectMapper json, Handler handler) {
        this.settings = settings;
        this.timing = timing;
        this.http = http;
        this.json = json;
        this.handler = handler;
        this.loop = new ConnectionLoop("discord-gateway", "discord - the gateway loop", log, handler::failed);
    }

    void start() {
        loop.start(this::run);
    }

    /** Closes the connection with 1000 (the session ends) and stops the loop. Idempotent. */
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
                resumeUrl = null;
                seq = -1;
            }
            if (e.healthy()) {
                backoff.reset();
            }
            Duration wait = e.next() == Next.IDENTIFY_LATER ? invalidSessionWait() : backoff.next();
            String then = sessionId != null ? "resuming" : "identifying";
            // the gateway logs every connection change, so this is the one report of the drop
            handler.connection(ConnectionState.BACKING_OFF, e.detail() + "; " + then + " in " + wait.toMillis() + " ms (attempt "
                    + Math.max(1, backoff.attempts()) + ")");
            if (!loop.pause(wait)) {
                return;
            }
        }
    }

    private Ending connectOnce() {
        boolean resuming = sessionId != null;
        boolean viaResumeUrl = resuming && resumeUrl != null;
        URI uri = withQuery(viaResumeUrl ? resumeUrl : settings.gatewayUri());
        handler.connection(ConnectionState.CONNECTING, resuming ? "resuming session at seq " + seq : "identifying");
        Ending ending;
        WebSocketSession ws = null;
        try {
            ws = WebSocketSession.open(http, uri, timing.connectTimeout());
            current = ws;
            ending = converse(ws, resuming);
        } catch (IOException e) {
            ending = new Ending(Next.RESUME, e.getMessage(), false);
        } catch (InterruptedException e) {
            return new Ending(Next.STOPPED, "interrupted", false);
        } finally {
            current = null;
            if (ws != null) {
                ws.close();
            }
        }
        if (viaResumeUrl && !ending.healthy() && ending.next() == Next.RESUME) {
            // READY's resume URL comes from the server; one that never leads to a resumed session (unreachable, or
            // not a gateway) must not hold the adapter in a loop: the session is resumed through the gateway URL
            resumeUrl = null;
            return new Ending(Next.RESUME, ending.detail() + "; the resume URL did not lead to a session, so the next "
                    + "resume goes to the gateway URL", false);
        }
        return ending;
    }

    /** One connection from HELLO to its end; returns what to do next. */
    private Ending converse(WebSocketSession ws, boolean resuming) throws InterruptedException {
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
        ws.send(resuming ? resume() : identify());
        Heartbeat beat = new Heartbeat(interval);
        boolean healthy = false;
        while (!loop.stopping()) {
            Incoming in = ws.next(beat.untilDue());
            if (in == null) {
                if (beat.awaitingAck) {
                    ws.close(CLOSE_TO_RESUME, "heartbeat not acknowledged");
                    return new Ending(Next.RESUME, "no heartbeat ACK within " + interval + " ms (zombied connection)", healthy);
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
                    return new Ending(Next.RESUME, "Discord asked for a reconnect (op 7)", healthy);
                }
                case OP_INVALID_SESSION -> {
                    boolean resumable = p.path("d").asBoolean(false);
                    ws.close(CLOSE_TO_RESUME, "invalid session");
                    return resumable
                            ? new Ending(Next.RESUME, "session invalidated (op 9, resumable)", healthy)
                            : new Ending(Next.IDENTIFY_LATER, "session invalidated (op 9, not resumable)", healthy);
                }
                default -> {
                    // op codes a bot does not receive, or new ones: ignored
                }
            }
        }
        return new Ending(Next.STOPPED, "stopping", healthy);
    }

    /** {@link #onDispatch}, except that a dispatch Herald cannot read is logged and passed over instead of ending the loop. */
    private boolean dispatchGuarded(JsonNode p) {
        try {
            return onDispatch(p);
        } catch (RuntimeException e) {
            log.warn("discord - ignored a {} dispatch Herald cannot read ({})", java.util.Objects.requireNonNullElse(PlatformIds.clean(p.path("t").asText("")), "unnamed"), e.toString());
            return false;
        }
    }

    /** Handles one dispatch; true when it completed a handshake (READY or RESUMED). */
    private boolean onDispatch(JsonNode p) {
        if (p.hasNonNull("s")) {
            seq = p.get("s").asLong();
        }
        String type = p.path("t").asText("");
        JsonNode d = p.path("d");
        boolean handshake = false;
        switch (type) {
            case "READY" -> {
                sessionId = d.path("session_id").asText(null);
                resumeUrl = resumeUrl(d.path("resume_gateway_url").asText(""));
                JsonNode user = d.path("user");
                handler.ready(user.path("id").asText(""), user.path("username").asText("bot"));
                handler.connection(ConnectionState.CONNECTED, "ready as " + user.path("username").asText("bot") + ", "
                        + d.path("guilds").size() + " guild(s)");
                handshake = true;
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

    /** READY's resume URL when it is a ws/wss URL with a host; otherwise none (a resume then uses the gateway URL). */
    private static URI resumeUrl(String url) {
        if (url.isBlank()) {
            return null;
        }
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
            if ((scheme.equals("ws") || scheme.equals("wss")) && uri.getHost() != null) {
                return uri;
            }
        } catch (java.net.URISyntaxException e) {
            // falls through: not a URL
        }
        log.warn("discord - READY carried a resume URL that is not a ws:// or wss:// URL ({} chars); resuming through the gateway URL",
                url.length());
        return null;
    }

    private Ending ended(Incoming in, boolean healthy) {
        if (in instanceof Closed c) {
            return switch (CloseCodes.next(c.code())) {
                case GIVE_UP -> new Ending(Next.GIVE_UP, CloseCodes.fatalMessage(c.code()), healthy);
                case IDENTIFY -> new Ending(Next.IDENTIFY, "connection closed (" + CloseCodes.describe(c.code(), c.reason())
                        + "); the session cannot be resumed", healthy);
                default -> new Ending(Next.RESUME, "connection closed (" + CloseCodes.describe(c.code(), c.reason()) + ")", healthy);
            };
        }
        Throwable error = in instanceof Failed f ? f.error() : null;
        return new Ending(Next.RESUME, "connection lost (" + (error == null ? "unknown" : error.getClass().getSimpleName()) + ")", healthy);
    }

    private String identify() {
        ObjectNode d = json.createObjectNode();
        d.put("token", settings.tokenValue());
        d.put("intents", INTENTS);
        ObjectNode props = d.putObject("properties");
        props.put("os", System.getProperty("os.name", "linux").toLowerCase(java.util.Locale.ROOT));
        props.put("browser", "herald");
        props.put("device", "herald");
        return payload(OP_IDENTIFY, d);
    }

    private String resume() {
        ObjectNode d = json.createObjectNode();
        d.put("token", settings.tokenValue());
        d.put("session_id", sessionId);
        d.put("seq", seq);
        return payload(OP_RESUME, d);
    }

    private String heartbeat() {
        ObjectNode p = json.createObjectNode();
        p.put("op", OP_HEARTBEAT);
        if (seq >= 0) {
            p.put("d", seq);
        } else {
            p.putNull("d");
        }
        return p.toString();
    }

    private String payload(int op, ObjectNode d) {
        ObjectNode p = json.createObjectNode();
        p.put("op", op);
        p.set("d", d);
        return p.toString();
    }

    private JsonNode parse(String text) {
        try {
            return json.readTree(text);
        } catch (IOException e) {
            log.debug("discord - ignored a gateway frame that is not JSON ({} chars)", text.length());
            return null;
        }
    }

    private Duration invalidSessionWait() {
        long min = timing.invalidSessionDelay().toMillis();
        return Duration.ofMillis(min + ThreadLocalRandom.current().nextLong(4 * min + 1));
    }

    /** {@code base} with {@code v=10&encoding=json}; a base without a path gets "/" first, as Discord's URLs have none. */
    static URI withQuery(URI base) {
        String s = base.toString();
        String path = base.getRawPath();
        return URI.create(s + (path == null || path.isEmpty() ? "/" : "") + "?v=10&encoding=json");
    }

    /** When the next heartbeat is due, and whether the last one is still unacknowledged. */
    private static final class Heartbeat {
        private final long intervalNanos;
        private long due;
        boolean awaitingAck;

        Heartbeat(long intervalMs) {
            this.intervalNanos = intervalMs * 1_000_000;
            // the first beat comes after interval * jitter, so that many clients do not beat in step
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
