package dev.herald.platforms.slack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.platforms.GatewayFixture;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.net.URI;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A local stand-in for Slack, written for these tests: {@code auth.test}, {@code apps.connections.open}
 * (a single-use ticket URL), the Socket Mode WebSocket ({@code hello}, envelopes, acks, {@code disconnect})
 * {@code chat.postMessage} (with programmable errors and 429s), and the external file upload: {@code
 * files.getUploadURLExternal} answers an upload URL on this fake, the bytes are POSTed there, and {@code
 * files.completeUploadExternal} shares the file (recorded in {@link #files}). Everything it receives is recorded.
 *
 * <p>Messages can be changed with {@code chat.update} (recorded in {@link #updates}; {@link #shown} is a message as the
 * channel shows it now, text and blocks) and {@code chat.postEphemeral} shows a text to one user ({@link #ephemerals}).
 * A press of a message's button is an {@code interactive} envelope with a {@code block_actions} payload
 * ({@link #press}).
 */
final class FakeSlack implements AutoCloseable {
    static final String APP_TOKEN = "xapp-1-A111-fake-app-token";
    static final String BOT_TOKEN = "xoxb-fake-bot-token-222";
    static final String BOT_USER = "UBOT";
    static final String BOT_ID = "BBOT";
    static final ObjectMapper JSON = new ObjectMapper();

    /** One chat.postMessage call that Slack accepted. */
    record Post(String channel, String threadTs, String text, String ts) {
    }

    final List<Post> posts = new CopyOnWriteArrayList<>();

    /** One chat.update call that Slack accepted. */
    record Update(String channel, String ts, String text, JsonNode blocks) {
    }

    /** One chat.postEphemeral: a text only {@code user} sees. */
    record Ephemeral(String channel, String user, String threadTs, String text) {
    }

    final List<Update> updates = new CopyOnWriteArrayList<>();
    final List<Ephemeral> ephemerals = new CopyOnWriteArrayList<>();
    /** Each message as the channel shows it now, by ts: channel, ts, thread_ts, text, blocks. */
    final java.util.Map<String, ObjectNode> messages = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger triggers = new AtomicInteger();

    /** A file shared by files.completeUploadExternal, as the channel shows it. */
    record SharedFile(String channel, String threadTs, String comment, String fileId, String title, String fileName, byte[] bytes) {
    }

    /** One POST to an upload URL: which file, its bytes, and whether it came with an Authorization header. */
    record UploadHit(String fileId, byte[] bytes, boolean authorization) {
    }

    final List<SharedFile> files = new CopyOnWriteArrayList<>();
    final List<UploadHit> uploadHits = new CopyOnWriteArrayList<>();
    /** When set, files.getUploadURLExternal answers this upload URL (with {@code {id}} for the file id) instead of the fake's own. */
    volatile String uploadUrlTemplate;
    private final java.util.Map<String, String[]> pendingUploads = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger fileIds = new AtomicInteger();
    /** Delay before an accepted post is answered (the message is in the channel at once). */
    volatile java.time.Duration answerDelay = java.time.Duration.ZERO;
    final List<String> acks = new CopyOnWriteArrayList<>();
    final List<String> tickets = new CopyOnWriteArrayList<>();
    final Deque<String> postErrors = new ConcurrentLinkedDeque<>();
    final Deque<Integer> postRetryAfter = new ConcurrentLinkedDeque<>();
    final AtomicInteger postAttempts = new AtomicInteger();
    /** Called with each ack's envelope id as it arrives (before it is recorded). */
    volatile Consumer<String> onAck = id -> {
    };

    private final Javalin app;
    private final AtomicInteger ticketCount = new AtomicInteger();
    private final AtomicInteger envelopes = new AtomicInteger();
    private final AtomicLong ts = new AtomicLong(1_712_000_000_000_100L);
    private final List<WsContext> open = new CopyOnWriteArrayList<>();
    private volatile WsContext current;

    FakeSlack() {
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.post("/api/auth.test", ctx -> {
                if (bearer(ctx, BOT_TOKEN)) {
                    json(ctx, JSON.createObjectNode().put("ok", true).put("user_id", BOT_USER).put("bot_id", BOT_ID).put("team", "Test Team"));
                }
            });
            config.routes.post("/api/apps.connections.open", ctx -> {
                if (bearer(ctx, APP_TOKEN)) {
                    String ticket = "ticket-" + ticketCount.incrementAndGet();
                    tickets.add(ticket);
                    json(ctx, JSON.createObjectNode().put("ok", true).put("url", "ws://127.0.0.1:" + port() + "/link?ticket=" + ticket));
                }
            });
            config.routes.post("/api/chat.postMessage", this::postMessage);
            config.routes.post("/api/chat.update", this::update);
            config.routes.post("/api/chat.postEphemeral", this::postEphemeral);
            config.routes.post("/api/files.getUploadURLExternal", this::getUploadUrl);
            config.routes.post("/upload/{id}", ctx -> {
                String id = ctx.pathParam("id");
                uploadHits.add(new UploadHit(id, ctx.bodyAsBytes(), ctx.header("Authorization") != null));
                String[] pending = pendingUploads.get(id);
                if (pending == null) {
                    ctx.status(404).result("not found");
                    return;
                }
                pending[2] = java.util.Base64.getEncoder().encodeToString(ctx.bodyAsBytes());
                ctx.status(200).result("OK - " + ctx.bodyAsBytes().length);
            });
            config.routes.post("/api/files.completeUploadExternal", this::completeUpload);
            config.routes.ws("/link", ws -> {
                ws.onConnect(ctx -> {
                    open.add(ctx);
                    current = ctx;
                    send(ctx, "{\"type\":\"hello\",\"num_connections\":" + open.size() + ",\"connection_info\":{\"app_id\":\"A111\"}}");
                });
                ws.onMessage(ctx -> {
                    JsonNode n = JSON.readTree(ctx.message());
                    String id = n.path("envelope_id").asText("");
                    if (!id.isEmpty()) {
                        onAck.accept(id);
                        acks.add(id);
                    }
                });
                ws.onClose(ctx -> {
                    open.remove(ctx);
                    if (current == ctx) {
                        current = null;
                    }
                });
            });
        }).start("127.0.0.1", 0);
    }

    int port() {
        return app.port();
    }

    /** A Herald process on this fake: the real adapter with the fake's tokens; it has started once its socket is connected. */
    GatewayFixture herald(String... allowedUsers) {
        return herald(FakeSlack::timing, () -> true, allowedUsers);
    }

    /**
     * A Herald process on this fake with the timing and streaming choice these give when it starts; the adapter keeps its
     * button presses in the process's store.
     */
    GatewayFixture herald(java.util.function.Supplier<SlackSettings.Timing> timing, java.util.function.BooleanSupplier streaming,
            String... allowedUsers) {
        GatewayFixture[] fixture = new GatewayFixture[1];
        fixture[0] = new GatewayFixture(clock -> new SlackAdapter(settings().withStreaming(streaming.getAsBoolean()), timing.get(), clock,
                fixture[0].storage.platformState())).allow(allowedUsers).readyWhen(this::connected).closing(this);
        return fixture[0];
    }

    SlackSettings settings() {
        return SlackSettings.of(APP_TOKEN, BOT_TOKEN).withApiBase(URI.create("http://127.0.0.1:" + app.port() + "/api"));
    }

    /** Quick reconnection and short timeouts, so that a test of a dropped connection takes milliseconds. */
    static SlackSettings.Timing timing() {
        return timing(Duration.ofMillis(50));
    }

    /** {@link #timing()} with drafts updated at most once per {@code editInterval}. */
    static SlackSettings.Timing timing(Duration editInterval) {
        return new SlackSettings.Timing(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(3), Duration.ofSeconds(20),
                Duration.ofSeconds(70), Duration.ofSeconds(3), editInterval);
    }

    // ---- driving ------------------------------------------------------------------------------

    /** Delivers a message event in an events_api envelope on the current connection; returns the envelope id. */
    String deliver(ObjectNode event) {
        return deliver(event, 0);
    }

    String deliver(ObjectNode event, int retryAttempt) {
        String envelopeId = "env-" + envelopes.incrementAndGet();
        ObjectNode env = JSON.createObjectNode().put("envelope_id", envelopeId).put("type", "events_api")
                .put("accepts_response_payload", false).put("retry_attempt", retryAttempt).put("retry_reason", retryAttempt > 0 ? "timeout" : "");
        ObjectNode payload = env.putObject("payload").put("type", "event_callback").put("event_id", "Ev" + envelopes.get());
        payload.set("event", event);
        send(requireCurrent(), env.toString());
        return envelopeId;
    }

    /** A user's message event; {@code threadTs} null for a top-level message. */
    ObjectNode message(String channel, String channelType, String user, String ts, String threadTs, String text) {
        ObjectNode e = JSON.createObjectNode().put("type", "message").put("channel", channel).put("channel_type", channelType)
                .put("user", user).put("ts", ts).put("text", text).put("event_ts", ts);
        if (threadTs != null) {
            e.put("thread_ts", threadTs);
        }
        return e;
    }

    /**
     * {@code user} presses the button {@code value} (action {@code actionId}) of the message {@code ts}, as Slack delivers
     * it over Socket Mode; returns the envelope (to deliver again for a redelivery with {@link #redeliver}).
     */
    ObjectNode press(String ts, String user, String actionId, String value) {
        ObjectNode message = messages.get(ts);
        String channel = message.path("channel").asText();
        ObjectNode env = JSON.createObjectNode().put("envelope_id", "env-" + envelopes.incrementAndGet()).put("type", "interactive")
                .put("accepts_response_payload", false);
        ObjectNode payload = env.putObject("payload").put("type", "block_actions").put("api_app_id", "A111")
                .put("trigger_id", "1712000" + triggers.incrementAndGet() + ".123456.abcdef" + triggers.get())
                .put("response_url", "http://127.0.0.1:" + port() + "/actions/T1");
        payload.putObject("user").put("id", user).put("username", "user-" + user).put("name", "user-" + user).put("team_id", "T1");
        payload.putObject("container").put("type", "message").put("message_ts", ts).put("channel_id", channel).put("is_ephemeral", false);
        payload.putObject("channel").put("id", channel).put("name", channel.startsWith("D") ? "directmessage" : "general");
        ObjectNode shown = message.deepCopy();
        shown.remove("channel");
        shown.put("type", "message").put("user", BOT_USER).put("bot_id", BOT_ID);
        payload.set("message", shown);
        payload.putArray("actions").addObject().put("action_id", actionId).put("block_id", "herald_approval").put("type", "button")
                .put("value", value).put("action_ts", "1712001" + triggers.get() + ".000100");
        send(requireCurrent(), env.toString());
        return env;
    }

    /** Delivers {@code envelope} again, with the retry fields Slack sets. */
    void redeliver(ObjectNode envelope) {
        ObjectNode again = envelope.deepCopy().put("retry_attempt", 1).put("retry_reason", "timeout");
        send(requireCurrent(), again.toString());
    }

    /** What the channel shows of message {@code ts} now: its text and blocks. */
    ObjectNode shown(String ts) {
        return messages.get(ts);
    }

    List<Ephemeral> ephemeralsTo(String user) {
        return ephemerals.stream().filter(e -> e.user().equals(user)).toList();
    }

    /** Slack asks for a new connection on the current one. */
    void disconnect(String reason) {
        send(requireCurrent(), "{\"type\":\"disconnect\",\"reason\":\"" + reason + "\",\"debug_info\":{\"host\":\"fake\"}}");
    }

    /** The server closes the current connection without a disconnect message (a dropped link). */
    void dropCurrent() {
        WsContext ws = current;
        current = null;
        if (ws != null) {
            ws.closeSession(1011, "server error");
        }
    }

    /** Sends a raw frame on the current connection. */
    void raw(String frame) {
        send(requireCurrent(), frame);
    }

    int openConnections() {
        return open.size();
    }

    boolean connected() {
        return current != null;
    }

    List<Post> postsIn(String channel, String threadTs) {
        return posts.stream().filter(p -> p.channel().equals(channel) && java.util.Objects.equals(p.threadTs(), threadTs)).toList();
    }

    // ---- server side --------------------------------------------------------------------------

    private void postMessage(Context ctx) throws Exception {
        postAttempts.incrementAndGet();
        if (!bearer(ctx, BOT_TOKEN)) {
            return;
        }
        Integer retryAfter = postRetryAfter.poll();
        if (retryAfter != null) {
            ctx.status(429).header("Retry-After", Integer.toString(retryAfter)).result("");
            return;
        }
        String error = postErrors.poll();
        if (error != null) {
            json(ctx, JSON.createObjectNode().put("ok", false).put("error", error));
            return;
        }
        JsonNode body = JSON.readTree(ctx.body());
        String messageTs = Long.toString(ts.incrementAndGet()).replaceFirst("(\\d{10})(\\d{6})", "$1.$2");
        String channel = body.path("channel").asText();
        posts.add(new Post(channel, body.path("thread_ts").asText(null), body.path("text").asText(), messageTs));
        ObjectNode shown = JSON.createObjectNode().put("channel", channel).put("ts", messageTs).put("text", body.path("text").asText());
        if (body.hasNonNull("thread_ts")) {
            shown.put("thread_ts", body.path("thread_ts").asText());
        }
        shown.set("blocks", body.has("blocks") ? body.get("blocks") : JSON.createArrayNode());
        messages.put(messageTs, shown);
        if (!answerDelay.isZero()) {
            Thread.sleep(answerDelay);
        }
        json(ctx, JSON.createObjectNode().put("ok", true).put("channel", channel).put("ts", messageTs));
    }

    /** As Slack: only the bot's own message in that channel can be updated; blocks are replaced when given. */
    private void update(Context ctx) throws Exception {
        if (!bearer(ctx, BOT_TOKEN)) {
            return;
        }
        JsonNode body = JSON.readTree(ctx.body());
        String channel = body.path("channel").asText();
        String ts = body.path("ts").asText();
        ObjectNode message = messages.get(ts);
        if (message == null || !message.path("channel").asText().equals(channel)) {
            json(ctx, JSON.createObjectNode().put("ok", false).put("error", "message_not_found"));
            return;
        }
        updates.add(new Update(channel, ts, body.path("text").asText(), body.get("blocks")));
        message.put("text", body.path("text").asText());
        if (body.has("blocks")) {
            message.set("blocks", body.get("blocks"));
        }
        json(ctx, JSON.createObjectNode().put("ok", true).put("channel", channel).put("ts", ts).put("text", body.path("text").asText()));
    }

    private void postEphemeral(Context ctx) throws Exception {
        if (!bearer(ctx, BOT_TOKEN)) {
            return;
        }
        JsonNode body = JSON.readTree(ctx.body());
        ephemerals.add(new Ephemeral(body.path("channel").asText(), body.path("user").asText(), body.path("thread_ts").asText(null),
                body.path("text").asText()));
        json(ctx, JSON.createObjectNode().put("ok", true).put("message_ts", Long.toString(ts.incrementAndGet())
                .replaceFirst("(\\d{10})(\\d{6})", "$1.$2")));
    }

    private void getUploadUrl(Context ctx) {
        if (!bearer(ctx, BOT_TOKEN)) {
            return;
        }
        String name = ctx.formParam("filename");
        String length = ctx.formParam("length");
        if (name == null || name.isBlank() || length == null || !length.matches("\\d+")) {
            json(ctx, JSON.createObjectNode().put("ok", false).put("error", "invalid_arguments"));
            return;
        }
        String id = "F" + (1000 + fileIds.incrementAndGet());
        pendingUploads.put(id, new String[] {name, length, null});
        String template = uploadUrlTemplate;
        String url = template != null ? template.replace("{id}", id) : "http://127.0.0.1:" + port() + "/upload/" + id;
        json(ctx, JSON.createObjectNode().put("ok", true).put("upload_url", url).put("file_id", id));
    }

    /** As Slack: each file must have been uploaded with the length announced; then it is shared in the channel. */
    private void completeUpload(Context ctx) throws Exception {
        if (!bearer(ctx, BOT_TOKEN)) {
            return;
        }
        JsonNode list = JSON.readTree(java.util.Objects.requireNonNullElse(ctx.formParam("files"), "[]"));
        String channel = ctx.formParam("channel_id");
        com.fasterxml.jackson.databind.node.ArrayNode answered = JSON.createArrayNode();
        for (JsonNode f : list) {
            String[] pending = pendingUploads.get(f.path("id").asText());
            if (pending == null || pending[2] == null
                    || java.util.Base64.getDecoder().decode(pending[2]).length != Long.parseLong(pending[1])) {
                json(ctx, JSON.createObjectNode().put("ok", false).put("error", "file_upload_size_mismatch"));
                return;
            }
        }
        for (JsonNode f : list) {
            String id = f.path("id").asText();
            String[] pending = pendingUploads.remove(id);
            files.add(new SharedFile(channel, ctx.formParam("thread_ts"), ctx.formParam("initial_comment"), id,
                    f.path("title").asText(null), pending[0], java.util.Base64.getDecoder().decode(pending[2])));
            answered.addObject().put("id", id).put("title", f.path("title").asText(pending[0]));
        }
        ObjectNode answer = JSON.createObjectNode().put("ok", true);
        answer.set("files", answered);
        json(ctx, answer);
    }

    private static boolean bearer(Context ctx, String token) {
        if (("Bearer " + token).equals(ctx.header("Authorization"))) {
            return true;
        }
        json(ctx, JSON.createObjectNode().put("ok", false).put("error", "invalid_auth"));
        return false;
    }

    private static void json(Context ctx, JsonNode body) {
        ctx.status(200).contentType("application/json; charset=utf-8").result(body.toString());
    }

    private WsContext requireCurrent() {
        WsContext ws = current;
        if (ws == null) {
            throw new IllegalStateException("no socket mode connection is open");
        }
        return ws;
    }

    private static void send(WsContext ctx, String text) {
        synchronized (ctx) {
            ctx.send(text);
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
