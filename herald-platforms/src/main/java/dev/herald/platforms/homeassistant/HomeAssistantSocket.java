package dev.herald.platforms.homeassistant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.ConnectionLoop;
import dev.herald.platforms.common.WebSocketSession;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Herald's client of Home Assistant's WebSocket API ({@code /api/websocket}): one connection, kept open by one loop.
 *
 * <p>The wire format: the server opens with {@code auth_required}; the client answers {@code {"type":"auth",
 * "access_token":...}}; the server says {@code auth_ok} (then commands may flow) or {@code auth_invalid} and closes.
 * Each command carries an {@code id} that counts up from 1 on each connection; its answer is a {@code result} with
 * {@code success} and {@code result} or {@code error: {code, message}}, or a {@code pong} for a {@code ping}. A server
 * may send several messages as one JSON array (when a client asked for {@code coalesce_messages}; this one does not, but
 * reads arrays anyway).
 *
 * <p>Concurrency: the loop thread alone reads the socket and completes the pending commands; callers send under the
 * session's own lock and wait for their future. A connection that ends fails every command still waiting on it with a
 * message saying so, and the loop connects again after a {@link Backoff} wait. A refused token ends the loop for good:
 * it cannot start working without a new configuration.
 */
final class HomeAssistantSocket implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HomeAssistantSocket.class);
    static final ObjectMapper JSON = new ObjectMapper();

    /** A command that failed: Home Assistant's error code (or {@code not_connected}, {@code timeout}) and its message. */
    static final class CommandException extends Exception {
        final String code;

        CommandException(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }

    /** One open, authenticated connection and its commands in flight. */
    private record Live(WebSocketSession session, AtomicInteger ids, Map<Integer, CompletableFuture<JsonNode>> pending) {
    }

    private final URI uri;
    private final String token;
    private final HomeAssistantSettings.Timing timing;
    private final HttpClient http;
    private final ConnectionLoop loop;
    private final BiConsumer<ConnectionState, String> states;
    private volatile Live live;
    private volatile WebSocketSession opening;
    private volatile String haVersion = "";

    /**
     * @param states gets each connection state with a detail for the operator (never the token); a {@code STOPPED} with
     *               a detail after a refused token means the loop gave up
     */
    HomeAssistantSocket(URI uri, String token, HomeAssistantSettings.Timing timing, BiConsumer<ConnectionState, String> states) {
        this.uri = uri;
        this.token = token;
        this.timing = timing;
        this.states = states;
        this.http = HttpClient.newBuilder().connectTimeout(timing.connectTimeout()).build();
        this.loop = new ConnectionLoop("homeassistant-socket", "homeassistant - the WebSocket loop", log,
                message -> states.accept(ConnectionState.STOPPED, message));
    }

    void start() {
        loop.start(this::run);
    }

    boolean connected() {
        return live != null;
    }

    String haVersion() {
        return haVersion;
    }

    /**
     * Sends {@code command} (its {@code id} is set here) and waits for its result: the {@code result} field of a
     * successful answer ({@code pong} for a ping).
     */
    JsonNode command(ObjectNode command) throws CommandException, InterruptedException {
        Live current = live;
        if (current == null) {
            throw new CommandException("not_connected", "Home Assistant is not connected (" + WebSocketSession.where(uri) + "); try again shortly");
        }
        int id = current.ids().incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        current.pending().put(id, answer);
        command.put("id", id);
        if (!current.session().send(command.toString())) {
            current.pending().remove(id);
            throw new CommandException("not_connected", "the connection to Home Assistant broke while sending; try again shortly");
        }
        try {
            return answer.get(timing.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CommandException c ? c : new CommandException("unknown", String.valueOf(e.getCause()));
        } catch (TimeoutException e) {
            throw new CommandException("timeout", "Home Assistant did not answer " + command.path("type").asText() + " within "
                    + timing.requestTimeout().toMillis() + " ms");
        } finally {
            current.pending().remove(id);
        }
    }

    private void run() {
        Backoff backoff = timing.backoff();
        while (!loop.stopping()) {
            states.accept(ConnectionState.CONNECTING, "");
            String ended;
            try {
                ended = converse(backoff);
            } catch (Refused e) {
                log.error("homeassistant - {}", e.getMessage());
                states.accept(ConnectionState.STOPPED, e.getMessage());
                return;
            } catch (IOException e) {
                ended = e.getMessage();
            } catch (InterruptedException e) {
                return;
            }
            if (loop.stopping()) {
                return;
            }
            Duration wait = backoff.next();
            log.warn("homeassistant - {}; connecting again in {} ms (attempt {})", ended, wait.toMillis(), backoff.attempts());
            states.accept(ConnectionState.BACKING_OFF, ended);
            if (!loop.pause(wait)) {
                return;
            }
        }
    }

    /** The token was refused: no retry helps. */
    private static final class Refused extends Exception {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** One connection from open to end; returns why it ended. */
    private String converse(Backoff backoff) throws IOException, InterruptedException, Refused {
        WebSocketSession session = WebSocketSession.open(http, uri, timing.connectTimeout());
        opening = session;
        try {
            authenticate(session);
            Live current = new Live(session, new AtomicInteger(), new ConcurrentHashMap<>());
            live = current;
            backoff.reset();
            log.info("homeassistant - connected to {} (Home Assistant {})", WebSocketSession.where(uri), haVersion);
            states.accept(ConnectionState.CONNECTED, "Home Assistant " + haVersion);
            try {
                return read(current);
            } finally {
                live = null;
                CommandException lost = new CommandException("not_connected", "the connection to Home Assistant ended before it answered");
                current.pending().values().forEach(f -> f.completeExceptionally(lost));
            }
        } finally {
            opening = null;
            session.close();
        }
    }

    private void authenticate(WebSocketSession session) throws IOException, InterruptedException, Refused {
        JsonNode first = nextMessage(session, "auth_required");
        if (!"auth_required".equals(first.path("type").asText())) {
            throw new IOException("Home Assistant opened with \"" + HomeAssistantIds.clip(first.path("type").asText()) + "\", not auth_required");
        }
        ObjectNode auth = JSON.createObjectNode().put("type", "auth").put("access_token", token);
        if (!session.send(auth.toString())) {
            throw new IOException("the connection to Home Assistant broke while authenticating");
        }
        JsonNode answer = nextMessage(session, "auth_ok");
        switch (answer.path("type").asText()) {
            case "auth_ok" -> haVersion = HomeAssistantIds.clip(answer.path("ha_version").asText("?"));
            case "auth_invalid" -> throw new Refused("Home Assistant refused the access token (auth_invalid: "
                    + HomeAssistantIds.clip(answer.path("message").asText()) + "); set platforms.homeassistant.token to a long-lived access token"
                    + " from your Home Assistant profile (Security tab)");
            default -> throw new IOException("Home Assistant answered the authentication with \"" + HomeAssistantIds.clip(answer.path("type").asText())
                    + "\"");
        }
    }

    /** The next message of the authentication phase, within the connect timeout. */
    private JsonNode nextMessage(WebSocketSession session, String expected) throws IOException, InterruptedException {
        WebSocketSession.Incoming in = session.next(timing.connectTimeout());
        return switch (in) {
            case null -> throw new IOException("no " + expected + " from Home Assistant within " + timing.connectTimeout().toMillis() + " ms");
            case WebSocketSession.Text t -> parse(t.text());
            case WebSocketSession.Closed c -> throw new IOException("Home Assistant closed the connection before " + expected + " (" + c.code() + ")");
            case WebSocketSession.Failed f -> throw new IOException("the connection to Home Assistant broke before " + expected + " ("
                    + f.error().getClass().getSimpleName() + ")");
        };
    }

    private static JsonNode parse(String text) throws IOException {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IOException("Home Assistant sent a message that is not JSON (" + text.length() + " characters)");
        }
    }

    /** Reads until the connection ends, answering commands; pings a silent server and drops one that stays silent. */
    private String read(Live current) throws InterruptedException {
        long pingMs = timing.pingInterval().toMillis();
        while (!loop.stopping()) {
            WebSocketSession.Incoming in = current.session().next(timing.pingInterval());
            switch (in) {
                case null -> {
                    if (current.session().silentForMillis() >= 2 * pingMs) {
                        return "Home Assistant was silent for " + current.session().silentForMillis() + " ms, a ping unanswered";
                    }
                    Thread.ofVirtual().start(() -> ping());
                }
                case WebSocketSession.Closed c -> {
                    return "Home Assistant closed the connection (" + c.code() + (c.reason().isEmpty() ? "" : " " + HomeAssistantIds.clip(c.reason())) + ")";
                }
                case WebSocketSession.Failed f -> {
                    return "the connection to Home Assistant broke (" + f.error().getClass().getSimpleName() + ")";
                }
                case WebSocketSession.Text t -> dispatch(current, t.text());
            }
        }
        return "stopping";
    }

    private void ping() {
        try {
            command(JSON.createObjectNode().put("type", "ping"));
        } catch (CommandException e) {
            log.debug("homeassistant - ping: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void dispatch(Live current, String text) {
        JsonNode message;
        try {
            message = parse(text);
        } catch (IOException e) {
            log.warn("homeassistant - {}; skipped", e.getMessage());
            return;
        }
        if (message.isArray()) {
            message.forEach(m -> answer(current, m));
        } else {
            answer(current, message);
        }
    }

    private void answer(Live current, JsonNode message) {
        String type = message.path("type").asText();
        if (!message.path("id").canConvertToInt() || !("result".equals(type) || "pong".equals(type))) {
            return; // events of a subscription Herald does not make, or something newer than this client
        }
        CompletableFuture<JsonNode> waiting = current.pending().get(message.path("id").asInt());
        if (waiting == null) {
            return;
        }
        if ("pong".equals(type)) {
            waiting.complete(message);
        } else if (message.path("success").asBoolean(false)) {
            waiting.complete(message.path("result"));
        } else {
            JsonNode error = message.path("error");
            waiting.completeExceptionally(new CommandException(HomeAssistantIds.clip(error.path("code").asText("unknown_error")),
                    HomeAssistantIds.clip(error.path("message").asText("no message"))));
        }
    }

    /** Stops the loop and closes the connection. Idempotent. */
    @Override
    public void close() {
        loop.stop(() -> {
            Live current = live;
            if (current != null) {
                current.session().close(1000, "herald stopping");
            }
            WebSocketSession o = opening;
            if (o != null) {
                o.close();
            }
        });
    }
}
