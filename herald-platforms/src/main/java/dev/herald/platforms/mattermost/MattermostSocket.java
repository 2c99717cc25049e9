package dev.herald.platforms.mattermost;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.ConnectionLoop;
import dev.herald.platforms.common.WebSocketSession;
import dev.herald.platforms.common.WebSocketSession.Closed;
import dev.herald.platforms.common.WebSocketSession.Failed;
import dev.herald.platforms.common.WebSocketSession.Incoming;
import dev.herald.platforms.common.WebSocketSession.Text;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection to Mattermost's WebSocket API ({@code /api/v4/websocket}): open, authenticate with the token
 * ({@code authentication_challenge}), wait for {@code hello}, then read events, pinging ({@code ping} action) while it
 * is quiet.
 *
 * <p>Concurrency: one loop thread (a {@link ConnectionLoop}) owns the lifecycle and reads the frames of the one
 * connection there is, in order, handing them to the {@link Handler} (which must not block: the adapter queues them
 * for its inbound worker). A connection that closes, breaks, or stays silent past the idle timeout is replaced after
 * the core's {@link Backoff}. Herald does not ask the server to replay a dropped connection's events: each new
 * connection starts afresh ({@code seq} from 0), and the adapter catches up through REST from its stored cursors
 * ({@link Handler#connected}). A gap in {@code seq} on a live connection means events were lost; the handler is told,
 * and catches up the same way. A token the server rejects ends the loop through {@link Handler#failed}.
 */
final class MattermostSocket {
    private static final Logger log = LoggerFactory.getLogger(MattermostSocket.class);
    private static final Duration READ_SLICE = Duration.ofMillis(250);

    /** Where events and connection changes go; called on the loop thread. */
    interface Handler {
        /** Before each connection attempt (learns who the bot is); a failure of REST here retries, a rejected token is fatal. */
        void beforeConnect() throws MattermostApi.CallFailed;

        /** A connection said hello: catch up on what was missed since the cursors. */
        void connected(String connectionId);

        /** A new post. */
        void posted(MattermostFrames.Posted posted);

        /** Events were lost on a live connection ({@code seq} jumped from {@code expected} to {@code got}). */
        void gap(long expected, long got);

        void connection(ConnectionState state, String detail);

        void failed(String message);
    }

    private record Hello(String connectionId, long seq) {
    }

    private final MattermostSettings settings;
    private final MattermostSettings.Timing timing;
    private final HttpClient http;
    private final ObjectMapper json;
    private final MattermostFrames frames;
    private final Handler handler;
    private final ConnectionLoop loop;
    private volatile WebSocketSession current;

    MattermostSocket(MattermostSettings settings, MattermostSettings.Timing timing, HttpClient http, ObjectMapper json, Handler handler) {
        this.settings = settings;
        this.timing = timing;
        this.http = http;
        this.json = json;
        this.frames = new MattermostFrames(json);
        this.handler = handler;
        this.loop = new ConnectionLoop("mattermost-websocket", "mattermost - the websocket loop", log, handler::failed);
    }

    void start() {
        loop.start(this::run);
    }

    /** Stops the loop, closing the connection first so the loop sees a stop, not a drop. */
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
            WebSocketSession ws;
            Hello hello;
            AtomicLong actions = new AtomicLong();
            try {
                handler.beforeConnect();
                handler.connection(ConnectionState.CONNECTING, "opening the websocket");
                ws = WebSocketSession.open(http, settings.websocketUri(), timing.connectTimeout());
                current = ws;
                hello = authenticate(ws, actions);
            } catch (MattermostApi.CallFailed e) {
                if (e.failure.status() == 401) {
                    stopWith(e.getMessage());
                    return;
                }
                if (!pause(backoff, e.getMessage())) {
                    return;
                }
                continue;
            } catch (IOException e) {
                closeCurrent("not connected");
                if (!pause(backoff, "mattermost - " + e.getMessage())) {
                    return;
                }
                continue;
            }
            backoff.reset();
            handler.connection(ConnectionState.CONNECTED, "websocket connection " + hello.connectionId());
            handler.connected(hello.connectionId());
            String why = converse(ws, hello.seq() + 1, actions);
            closeCurrent("lost");
            if (loop.stopping() || !pause(backoff, why)) {
                return;
            }
        }
    }

    /** Sends the authentication challenge and waits for its OK and for {@code hello} (the server sends them in either order). */
    private Hello authenticate(WebSocketSession ws, AtomicLong actions) throws IOException {
        long seq = actions.incrementAndGet();
        ObjectNode challenge = json.createObjectNode().put("seq", seq).put("action", "authentication_challenge");
        challenge.putObject("data").put("token", settings.tokenValue());
        if (!ws.send(challenge.toString())) {
            throw new IOException("the websocket closed before the authentication challenge went out");
        }
        long deadline = System.nanoTime() + timing.connectTimeout().toNanos();
        boolean authenticated = false;
        Hello hello = null;
        while (!authenticated || hello == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException("no " + (authenticated ? "hello" : "answer to the authentication challenge") + " within "
                        + timing.connectTimeout().toMillis() + " ms");
            }
            Incoming in;
            try {
                in = ws.next(Duration.ofNanos(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting");
            }
            if (in == null) {
                continue;
            }
            if (!(in instanceof Text t)) {
                throw new IOException(ended(in) + " during the authentication");
            }
            MattermostFrames.Frame f = frames.parse(t.text());
            if (f instanceof MattermostFrames.Reply r && r.seqReply() == seq) {
                if (!r.ok()) {
                    throw new IOException("the server refused the authentication challenge (" + r.errorId() + ")");
                }
                authenticated = true;
            } else if (f instanceof MattermostFrames.Hello h) {
                hello = new Hello(h.connectionId(), h.seq());
            }
        }
        return hello;
    }

    /** Reads events until the connection ends, is silent too long, or the loop stops; returns why it ended. */
    private String converse(WebSocketSession ws, long firstSeq, AtomicLong actions) {
        long expected = firstSeq;
        long lastPing = System.nanoTime();
        while (!loop.stopping()) {
            Incoming in;
            try {
                in = ws.next(READ_SLICE);
            } catch (InterruptedException e) {
                return "interrupted";
            }
            if (in == null) {
                long silent = ws.silentForMillis();
                if (silent > timing.idleTimeout().toMillis()) {
                    return "mattermost - the websocket was silent for " + silent + " ms";
                }
                if (System.nanoTime() - lastPing >= timing.pingInterval().toNanos()) {
                    ws.send(json.createObjectNode().put("action", "ping").put("seq", actions.incrementAndGet()).toString());
                    lastPing = System.nanoTime();
                }
                continue;
            }
            if (!(in instanceof Text t)) {
                return "mattermost - " + ended(in);
            }
            MattermostFrames.Frame f = frames.parse(t.text());
            long seq = switch (f) {
                case MattermostFrames.Posted p -> p.seq();
                case MattermostFrames.Other o -> o.seq();
                case MattermostFrames.Hello h -> h.seq();
                default -> -1;
            };
            if (seq >= 0) {
                if (seq > expected) {
                    log.info("mattermost - websocket events were lost (expected seq {}, got {}); catching up through the API", expected, seq);
                    handler.gap(expected, seq);
                } else if (seq < expected) {
                    log.debug("mattermost - websocket seq went back from {} to {}; counting on from there", expected - 1, seq);
                }
                expected = seq + 1;
            }
            if (f instanceof MattermostFrames.Posted p) {
                handler.posted(p);
            } else if (f instanceof MattermostFrames.Malformed m) {
                log.warn("mattermost - skipped {} on the websocket", m.problem());
            }
        }
        return "stopping";
    }

    private static String ended(Incoming in) {
        return in instanceof Closed c ? "the websocket was closed (close " + c.code() + ")"
                : "the websocket broke (" + (in instanceof Failed f ? f.error().getClass().getSimpleName() : "?") + ")";
    }

    private void closeCurrent(String why) {
        WebSocketSession ws = current;
        current = null;
        if (ws != null) {
            ws.close(1000, why);
        }
    }

    /** Reports the drop and sleeps the next backoff; false when stopping. */
    private boolean pause(Backoff backoff, String why) {
        Duration wait = backoff.next();
        handler.connection(ConnectionState.BACKING_OFF, why + "; reconnecting in " + wait.toMillis() + " ms (attempt "
                + backoff.attempts() + ")");
        return loop.pause(wait);
    }

    private void stopWith(String message) {
        log.error(message);
        handler.failed(message);
    }
}
