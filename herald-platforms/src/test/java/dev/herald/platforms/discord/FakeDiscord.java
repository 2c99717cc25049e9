package dev.herald.platforms.discord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.platforms.GatewayFixture;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.websocket.WsConfig;
import io.javalin.websocket.WsContext;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A local stand-in for Discord, written for these tests: the Gateway WebSocket (HELLO, IDENTIFY, READY with
 * a resume URL, GUILD_CREATE, heartbeats and ACKs, RESUME with replay of missed dispatches, RESUMED,
 * INVALID_SESSION, close 4004 for a bad token) and the REST endpoints Herald calls (create message, typing,
 * get channel, with programmable 429s); a message with a file comes as {@code multipart/form-data} ({@code payload_json} and
 * {@code files[n]}), its files recorded in {@link #uploads}. Everything it receives is recorded for assertions.
 *
 * <p>Messages can be edited ({@code PATCH /channels/{id}/messages/{id}}, recorded in {@link #edits}), and a press of a
 * message's button is an INTERACTION_CREATE (type 3) dispatched by {@link #press}; its answer
 * ({@code POST /interactions/{id}/{token}/callback}) is recorded in {@link #callbacks} and, as on Discord, accepted once
 * per interaction within its token (a second answer is 400, code 40060), an UPDATE_MESSAGE (type 7) changing the
 * message. {@link #shown} is what the channel shows of a message now.
 *
 * <p>Create message honours {@code nonce} with {@code enforce_nonce} as Discord documents it: "if true and nonce is
 * present, it will be checked for uniqueness in the past few minutes; if another message was created by the same author
 * with the same nonce, that message will be returned and no new message will be created" (here: five minutes, by the
 * fake's clock, per bot token). {@link #answerDelay} makes it answer a created message late, as a slow API would.
 */
final class FakeDiscord implements AutoCloseable {
    static final String TOKEN = "fake-discord-bot-token-Zx9";
    static final String BOT_ID = "100000000000000001";
    static final String GUILD = "200000000000000001";
    static final ObjectMapper JSON = new ObjectMapper();

    /** One message created through REST. */
    record Post(String channelId, String content, String replyTo, String authorization, JsonNode body, String id) {
    }

    /** A file attached to a created message (a {@code multipart/form-data} post), as the channel shows it. */
    record Upload(String messageId, String channelId, String fileName, String contentType, byte[] bytes) {
    }

    /** One PATCH of a message. */
    record Edit(String channelId, String messageId, JsonNode body) {
    }

    /** One answer to an interaction. */
    record Callback(String interactionId, String token, JsonNode body) {
        int type() {
            return body.path("type").asInt();
        }

        String content() {
            return body.path("data").path("content").asText(null);
        }

        boolean ephemeral() {
            return (body.path("data").path("flags").asInt() & 64) != 0;
        }
    }

    final List<Edit> edits = new CopyOnWriteArrayList<>();
    final List<Callback> callbacks = new CopyOnWriteArrayList<>();
    /** The interaction id of every answer tried, taken or refused. */
    final List<String> callbackAttempts = new CopyOnWriteArrayList<>();
    /** Each message as the channel shows it now: id, channel_id, content, components. */
    final Map<String, ObjectNode> messages = new ConcurrentHashMap<>();
    private final Map<String, String> interactionTokens = new ConcurrentHashMap<>();
    private final AtomicLong interactionIds = new AtomicLong(900_000_000_000_000_000L);

    /** How long Discord remembers an enforced nonce here ("the past few minutes"). */
    static final Duration NONCE_MEMORY = Duration.ofMinutes(5);

    final List<JsonNode> received = new CopyOnWriteArrayList<>();
    final List<Post> posts = new CopyOnWriteArrayList<>();
    final List<Upload> uploads = new CopyOnWriteArrayList<>();
    final List<String> typing = new CopyOnWriteArrayList<>();
    final List<String> connectedPaths = new CopyOnWriteArrayList<>();
    final Deque<Double> rateLimitNext = new ConcurrentLinkedDeque<>();
    final AtomicInteger messagePostAttempts = new AtomicInteger();
    /** Posts answered with the message an earlier post of the same nonce created. */
    final AtomicInteger nonceReplays = new AtomicInteger();
    /** Delay before a created message is answered (the message exists at once). */
    volatile Duration answerDelay = Duration.ZERO;
    private final Map<String, NonceUse> nonces = new ConcurrentHashMap<>();

    private record NonceUse(String messageJson, long atNanos) {
    }
    final Map<String, ObjectNode> channels = new ConcurrentHashMap<>();
    volatile int heartbeatInterval = 1_000;
    volatile boolean ackHeartbeats = true;
    /** When set, RESUME is answered with INVALID_SESSION (d: false) once. */
    volatile boolean invalidateNextResume;

    private final Javalin app;
    private final AtomicLong ids = new AtomicLong(300_000_000_000_000_000L);
    private final AtomicInteger sessions = new AtomicInteger();
    private final AtomicInteger handshakes = new AtomicInteger();
    private final List<ObjectNode> history = new ArrayList<>();
    private volatile WsContext current;
    private String sessionId;
    private long seq;

    FakeDiscord() {
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.ws("/gateway", ws -> gateway(ws, "/gateway"));
            config.routes.ws("/resume", ws -> gateway(ws, "/resume"));
            config.routes.post("/api/v10/channels/{id}/messages", this::createMessage);
            config.routes.patch("/api/v10/channels/{id}/messages/{message}", this::editMessage);
            config.routes.post("/api/v10/interactions/{id}/{token}/callback", this::interactionCallback);
            config.routes.post("/api/v10/channels/{id}/typing", ctx -> {
                typing.add(ctx.pathParam("id"));
                ctx.status(204);
            });
            config.routes.get("/api/v10/channels/{id}", ctx -> {
                ObjectNode c = channels.get(ctx.pathParam("id"));
                if (c == null) {
                    ctx.status(404).result("{\"message\":\"Unknown Channel\",\"code\":10003}");
                } else {
                    ctx.contentType("application/json").result(c.toString());
                }
            });
        }).start("127.0.0.1", 0);
        textChannel("general-1", "general");
    }

    URI apiBase() {
        return URI.create("http://127.0.0.1:" + app.port() + "/api/v10");
    }

    URI gatewayUrl() {
        return URI.create("ws://127.0.0.1:" + app.port() + "/gateway");
    }

    /** A Herald process on this fake: the real adapter with {@link #TOKEN}; it has started once it identified and is connected. */
    GatewayFixture herald(String... allowedUsers) {
        return herald(FakeDiscord::timing, () -> true, allowedUsers);
    }

    /**
     * A Herald process on this fake with the timing and streaming choice these give when it starts; the adapter keeps its
     * button presses in the process's store.
     */
    GatewayFixture herald(java.util.function.Supplier<DiscordSettings.Timing> timing, java.util.function.BooleanSupplier streaming,
            String... allowedUsers) {
        GatewayFixture[] fixture = new GatewayFixture[1];
        fixture[0] = new GatewayFixture(clock -> new DiscordAdapter(settings(TOKEN).withStreaming(streaming.getAsBoolean()), timing.get(), clock,
                fixture[0].storage.platformState())).allow(allowedUsers).readyWhen(() -> !sent(2).isEmpty() && connected()).closing(this);
        return fixture[0];
    }

    DiscordSettings settings(String token) {
        return DiscordSettings.of(token).withEndpoints(apiBase(), gatewayUrl());
    }

    /** Quick reconnection and short timeouts, so that a test of a dropped connection takes milliseconds. */
    static DiscordSettings.Timing timing() {
        return timing(Duration.ofMillis(50));
    }

    /** {@link #timing()} with drafts edited at most once per {@code editInterval}. */
    static DiscordSettings.Timing timing(Duration editInterval) {
        return new DiscordSettings.Timing(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofMillis(20), Duration.ofSeconds(3),
                Duration.ofSeconds(5), Duration.ofSeconds(3), editInterval);
    }

    // ---- channels -----------------------------------------------------------------------------

    void textChannel(String id, String name) {
        ObjectNode c = JSON.createObjectNode().put("id", id).put("type", 0).put("guild_id", GUILD).put("name", name);
        channels.put(id, c);
    }

    void thread(String id, String parentId, String name) {
        ObjectNode c = JSON.createObjectNode().put("id", id).put("type", 11).put("guild_id", GUILD).put("parent_id", parentId)
                .put("name", name);
        channels.put(id, c);
    }

    // ---- driving the gateway ------------------------------------------------------------------

    /** Sends a dispatch with the next sequence number; kept for replay, and lost now when nobody is connected. */
    synchronized long dispatch(String type, JsonNode d) {
        seq++;
        ObjectNode p = JSON.createObjectNode().put("op", 0).put("t", type).put("s", seq);
        p.set("d", d);
        history.add(p);
        WsContext ws = current;
        if (ws != null) {
            send(ws, p);
        }
        return seq;
    }

    /** A dispatch that was sent but lost with the connection: only a RESUME replays it. */
    synchronized long lostInFlight(String type, JsonNode d) {
        seq++;
        ObjectNode p = JSON.createObjectNode().put("op", 0).put("t", type).put("s", seq);
        p.set("d", d);
        history.add(p);
        return seq;
    }

    synchronized long lastSeq() {
        return seq;
    }

    /** A MESSAGE_CREATE from a user; {@code guild} null means a DM. */
    long message(String id, String channelId, String guild, String userId, String content) {
        return dispatch("MESSAGE_CREATE", messageJson(id, channelId, guild, userId, content));
    }

    ObjectNode messageJson(String id, String channelId, String guild, String userId, String content) {
        ObjectNode d = JSON.createObjectNode().put("id", id).put("channel_id", channelId).put("content", content).put("type", 0);
        if (guild != null) {
            d.put("guild_id", guild);
        }
        d.putObject("author").put("id", userId).put("username", "user-" + userId);
        ArrayNode mentions = d.putArray("mentions");
        if (content.contains("<@" + BOT_ID + ">")) {
            mentions.addObject().put("id", BOT_ID).put("username", "herald");
        }
        d.putArray("attachments");
        return d;
    }

    /**
     * {@code userId} presses the button {@code customId} of message {@code messageId} (in a guild when {@code guild} is
     * set: the presser as a member, else in a DM); returns the interaction's id. The message's content comes along, as on
     * Discord.
     */
    String press(String messageId, String guild, String userId, String customId) {
        String id = Long.toString(interactionIds.incrementAndGet());
        press(interactionJson(id, messageId, guild, userId, customId));
        return id;
    }

    /** Dispatches {@code interaction} (again, for a redelivery). */
    void press(ObjectNode interaction) {
        dispatch("INTERACTION_CREATE", interaction);
    }

    ObjectNode interactionJson(String id, String messageId, String guild, String userId, String customId) {
        ObjectNode message = messages.get(messageId);
        String token = interactionTokens.computeIfAbsent(id, k -> "aW50ZXJhY3Rpb24-" + k + ".token_" + Long.toHexString(k.hashCode()));
        ObjectNode d = JSON.createObjectNode().put("id", id).put("application_id", BOT_ID).put("type", 3).put("token", token)
                .put("version", 1).put("channel_id", message.path("channel_id").asText());
        d.putObject("data").put("custom_id", customId).put("component_type", 2);
        ObjectNode user = JSON.createObjectNode().put("id", userId).put("username", "user-" + userId);
        if (guild != null) {
            d.put("guild_id", guild);
            d.putObject("member").set("user", user);
        } else {
            d.set("user", user);
        }
        d.set("message", message.deepCopy());
        pressedMessages.put(id, messageId);
        return d;
    }

    /** What the channel shows of message {@code id} now (its latest content and components). */
    ObjectNode shown(String id) {
        return messages.get(id);
    }

    List<Callback> callbacksTo(String interactionId) {
        return callbacks.stream().filter(c -> c.interactionId().equals(interactionId)).toList();
    }

    /** The server drops the connection with a resumable close code. */
    void drop() {
        WsContext ws = current;
        current = null;
        if (ws != null) {
            ws.closeSession(4000, "Unknown error");
        }
    }

    /** The server ends the session: closes the connection with 4009 (session timed out), after which a client must IDENTIFY. */
    void endSession() {
        WsContext ws = current; // cleared by its close, unless a newer connection has taken its place
        if (ws != null) {
            ws.closeSession(4009, "Session timed out");
        }
    }

    /** How many handshakes (READY after an IDENTIFY, RESUMED after a RESUME) this server has completed. */
    int handshakes() {
        return handshakes.get();
    }

    void requestReconnect() {
        WsContext ws = current;
        if (ws != null) {
            send(ws, JSON.createObjectNode().put("op", 7).putNull("d"));
        }
    }

    /** Sends {@code frame} as it is (any text, valid or not) on the current connection; false when none is open. */
    boolean raw(String frame) {
        WsContext ws = current;
        if (ws == null) {
            return false;
        }
        ws.send(frame);
        return true;
    }

    boolean connected() {
        return current != null;
    }

    // ---- what the client sent -----------------------------------------------------------------

    List<JsonNode> sent(int op) {
        return received.stream().filter(p -> p.path("op").asInt() == op).toList();
    }

    List<Post> postsTo(String channelId) {
        return posts.stream().filter(p -> p.channelId().equals(channelId)).toList();
    }

    List<Post> postsMatching(Predicate<String> content) {
        return posts.stream().filter(p -> content.test(p.content())).toList();
    }

    // ---- server side ----------------------------------------------------------------------------

    private void gateway(WsConfig ws, String path) {
        ws.onConnect(ctx -> {
            connectedPaths.add(path);
            current = ctx;
            send(ctx, JSON.createObjectNode().put("op", 10).set("d", JSON.createObjectNode().put("heartbeat_interval", heartbeatInterval)));
        });
        ws.onMessage(ctx -> {
            JsonNode p = JSON.readTree(ctx.message());
            received.add(p);
            switch (p.path("op").asInt()) {
                case 1 -> {
                    if (ackHeartbeats) {
                        send(ctx, JSON.createObjectNode().put("op", 11));
                    }
                }
                case 2 -> identify(ctx, p.path("d"));
                case 6 -> resume(ctx, p.path("d"));
                default -> {
                }
            }
        });
        ws.onClose(ctx -> {
            if (current == ctx) {
                current = null;
            }
        });
    }

    private void identify(WsContext ctx, JsonNode d) {
        if (!TOKEN.equals(d.path("token").asText())) {
            ctx.closeSession(4004, "Authentication failed.");
            return;
        }
        synchronized (this) {
            sessionId = "session-" + sessions.incrementAndGet();
            history.clear();
            seq = 0;
        }
        ObjectNode ready = JSON.createObjectNode().put("v", 10).put("session_id", sessionId)
                .put("resume_gateway_url", "ws://127.0.0.1:" + app.port() + "/resume");
        ready.putObject("user").put("id", BOT_ID).put("username", "herald").put("bot", true);
        ready.putArray("guilds").addObject().put("id", GUILD).put("unavailable", true);
        dispatch("READY", ready);
        ObjectNode guild = JSON.createObjectNode().put("id", GUILD).put("name", "Test Guild");
        ArrayNode list = guild.putArray("channels");
        ArrayNode threads = guild.putArray("threads");
        for (ObjectNode c : channels.values()) {
            (c.path("type").asInt() == 11 ? threads : list).add(c);
        }
        dispatch("GUILD_CREATE", guild);
        handshakes.incrementAndGet();
    }

    private void resume(WsContext ctx, JsonNode d) {
        List<ObjectNode> replay;
        synchronized (this) {
            boolean valid = TOKEN.equals(d.path("token").asText()) && d.path("session_id").asText().equals(sessionId);
            if (!valid || invalidateNextResume) {
                invalidateNextResume = false;
                send(ctx, JSON.createObjectNode().put("op", 9).put("d", false));
                return;
            }
            long from = d.path("seq").asLong();
            replay = history.stream().filter(p -> p.path("s").asLong() > from).toList();
        }
        for (ObjectNode p : replay) {
            send(ctx, p);
        }
        dispatch("RESUMED", JSON.createObjectNode());
        handshakes.incrementAndGet();
    }

    private void createMessage(Context ctx) throws Exception {
        messagePostAttempts.incrementAndGet();
        if (!("Bot " + TOKEN).equals(ctx.header("Authorization"))) {
            ctx.status(401).result("{\"message\":\"401: Unauthorized\",\"code\":0}");
            return;
        }
        Double retryAfter = rateLimitNext.poll();
        if (retryAfter != null) {
            ctx.status(429).header("Retry-After", "1").header("X-RateLimit-Global", "false")
                    .result("{\"message\":\"You are being rate limited.\",\"retry_after\":" + retryAfter + ",\"global\":false}");
            return;
        }
        String type = ctx.header("Content-Type");
        dev.herald.platforms.MultipartForm form = type != null && type.startsWith("multipart/")
                ? dev.herald.platforms.MultipartForm.parse(type, ctx.bodyAsBytes()) : null;
        JsonNode body = JSON.readTree(form == null ? ctx.body() : form.fields().getOrDefault("payload_json", "{}"));
        if (form != null) {
            // as Discord: each attachment in payload_json names the files[n] part it describes
            JsonNode attachments = body.path("attachments");
            boolean described = form.files().size() == attachments.size() && form.files().stream().allMatch(f ->
                    f.field().matches("files\\[\\d+]") && attachments.findValues("id").stream()
                            .anyMatch(id -> ("files[" + id.asText() + "]").equals(f.field())));
            if (form.files().isEmpty() || !described) {
                ctx.status(400).result("{\"message\":\"Invalid Form Body\",\"code\":50035}");
                return;
            }
        }
        String nonce = body.path("nonce").asText(null);
        String author = ctx.header("Authorization");
        String answer;
        synchronized (nonces) {
            NonceUse used = nonce == null ? null : nonces.get(author + "|" + nonce);
            if (body.path("enforce_nonce").asBoolean(false) && used != null
                    && System.nanoTime() - used.atNanos() < NONCE_MEMORY.toNanos()) {
                nonceReplays.incrementAndGet();
                answer = used.messageJson();
            } else {
                String id = Long.toString(ids.incrementAndGet());
                posts.add(new Post(ctx.pathParam("id"), body.path("content").asText(),
                        body.path("message_reference").path("message_id").asText(null), author, body, id));
                if (form != null) {
                    form.files().forEach(f -> uploads.add(new Upload(id, ctx.pathParam("id"), f.fileName(), f.contentType(), f.bytes())));
                }
                ObjectNode shown = JSON.createObjectNode().put("id", id).put("channel_id", ctx.pathParam("id"))
                        .put("content", body.path("content").asText(""));
                shown.set("components", body.has("components") ? body.get("components") : JSON.createArrayNode());
                messages.put(id, shown);
                ObjectNode created = JSON.createObjectNode().put("id", id).put("channel_id", ctx.pathParam("id"));
                if (nonce != null) {
                    created.put("nonce", nonce);
                }
                answer = created.toString();
                if (nonce != null) {
                    nonces.put(author + "|" + nonce, new NonceUse(answer, System.nanoTime()));
                }
            }
        }
        Duration delay = answerDelay;
        if (!delay.isZero()) {
            Thread.sleep(delay);
        }
        ctx.status(200).contentType("application/json").result(answer);
    }

    private void editMessage(Context ctx) throws Exception {
        if (!("Bot " + TOKEN).equals(ctx.header("Authorization"))) {
            ctx.status(401).result("{\"message\":\"401: Unauthorized\",\"code\":0}");
            return;
        }
        ObjectNode message = messages.get(ctx.pathParam("message"));
        if (message == null || !message.path("channel_id").asText().equals(ctx.pathParam("id"))) {
            ctx.status(404).result("{\"message\":\"Unknown Message\",\"code\":10008}");
            return;
        }
        JsonNode body = JSON.readTree(ctx.body());
        edits.add(new Edit(ctx.pathParam("id"), ctx.pathParam("message"), body));
        change(message, body);
        ctx.status(200).contentType("application/json").result(message.toString());
    }

    private void interactionCallback(Context ctx) throws Exception {
        String id = ctx.pathParam("id");
        callbackAttempts.add(id);
        if (!ctx.pathParam("token").equals(interactionTokens.get(id))) {
            ctx.status(401).result("{\"message\":\"Invalid Webhook Token\",\"code\":50027}");
            return;
        }
        JsonNode body = JSON.readTree(ctx.body());
        synchronized (callbacks) {
            if (!callbacksTo(id).isEmpty()) {
                ctx.status(400).result("{\"message\":\"Interaction has already been acknowledged.\",\"code\":40060}");
                return;
            }
            callbacks.add(new Callback(id, ctx.pathParam("token"), body));
        }
        if (body.path("type").asInt() == 7) {
            // UPDATE_MESSAGE: the message the pressed button is on
            for (ObjectNode m : messages.values()) {
                if (m.path("id").asText().equals(pressedMessage(id))) {
                    change(m, body.path("data"));
                }
            }
        }
        ctx.status(204);
    }

    private final Map<String, String> pressedMessages = new ConcurrentHashMap<>();

    private String pressedMessage(String interactionId) {
        return pressedMessages.get(interactionId);
    }

    private static void change(ObjectNode message, JsonNode edit) {
        if (edit.has("content")) {
            message.put("content", edit.path("content").asText());
        }
        if (edit.has("components")) {
            message.set("components", edit.get("components"));
        }
    }

    private static void send(WsContext ctx, JsonNode payload) {
        synchronized (ctx) {
            ctx.send(payload.toString());
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
