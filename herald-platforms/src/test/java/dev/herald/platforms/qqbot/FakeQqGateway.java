package dev.herald.platforms.qqbot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.platforms.GatewayFixture;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.websocket.WsConfig;
import io.javalin.websocket.WsContext;
import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for the QQ open platform, written for these tests from its documentation: the access token endpoint
 * ({@code POST /app/getAppAccessToken} with appId and clientSecret, answering access_token and expires_in as a string of
 * seconds), {@code GET /gateway}, the WebSocket gateway (HELLO op 10, IDENTIFY op 2 with {@code "QQBot <token>"}, READY,
 * heartbeats op 1 and ACKs op 11, RESUME op 6 with replay of missed dispatches then RESUMED, INVALID_SESSION op 9), passive
 * replies ({@code POST /v2/users/{openid}/messages}, {@code /v2/groups/{group_openid}/messages}) that refuse a second use
 * of a msg_id and msg_seq pair with code 40054005 and a msg_id they never dispatched, rich-media uploads
 * ({@code POST /v2/.../files}), and attachments served from {@code /media/...}. Everything it receives is recorded.
 */
final class FakeQqGateway implements AutoCloseable {
    static final String APP_ID = "102030405";
    static final String SECRET = "fake-qq-app-secret-Zq3";
    static final ObjectMapper JSON = new ObjectMapper();

    /** One message posted through REST. */
    record Post(String kind, String chat, String content, int msgType, String msgId, int msgSeq, String authorization, JsonNode body) {
    }

    /** One rich-media upload. */
    record Upload(String kind, String chat, int fileType, byte[] bytes, String fileInfo) {
    }

    final List<JsonNode> received = new CopyOnWriteArrayList<>();
    final List<Post> posts = new CopyOnWriteArrayList<>();
    final List<Post> refused = new CopyOnWriteArrayList<>();
    final List<Upload> uploads = new CopyOnWriteArrayList<>();
    final List<String> tokensIssued = new CopyOnWriteArrayList<>();
    final Deque<Integer> failNext = new ConcurrentLinkedDeque<>();
    final Map<String, byte[]> media = new ConcurrentHashMap<>();
    volatile int heartbeatInterval = 1_000;
    volatile String expiresIn = "7200";
    volatile boolean invalidateNextResume;

    private final Javalin app;
    private final Set<String> validTokens = ConcurrentHashMap.newKeySet();
    private final Set<String> dispatchedMsgIds = ConcurrentHashMap.newKeySet();
    private final Set<String> usedSeqs = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ids = new AtomicInteger();
    private final AtomicInteger sessions = new AtomicInteger();
    private final List<ObjectNode> history = new ArrayList<>();
    private volatile WsContext current;
    private String sessionId;
    private long seq;

    FakeQqGateway() {
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.post("/app/getAppAccessToken", this::token);
            config.routes.get("/gateway", ctx -> {
                if (authorized(ctx)) {
                    ctx.contentType("application/json").result("{\"url\":\"ws://127.0.0.1:" + port() + "/websocket\"}");
                }
            });
            config.routes.ws("/websocket", this::gateway);
            config.routes.post("/v2/users/{id}/messages", ctx -> message(ctx, "user"));
            config.routes.post("/v2/groups/{id}/messages", ctx -> message(ctx, "group"));
            config.routes.post("/v2/users/{id}/files", ctx -> upload(ctx, "user"));
            config.routes.post("/v2/groups/{id}/files", ctx -> upload(ctx, "group"));
            config.routes.get("/media/{name}", ctx -> {
                byte[] b = media.get(ctx.pathParam("name"));
                if (b == null) {
                    ctx.status(404);
                } else {
                    ctx.contentType("image/png").result(b);
                }
            });
        }).start("127.0.0.1", 0);
    }

    private int port() {
        return app.port();
    }

    URI apiBase() {
        return URI.create("http://127.0.0.1:" + app.port());
    }

    URI tokenUrl() {
        return URI.create("http://127.0.0.1:" + app.port() + "/app/getAppAccessToken");
    }

    QqBotSettings settings(String secret) {
        return QqBotSettings.of(APP_ID, secret).withEndpoints(apiBase(), tokenUrl());
    }

    static QqBotSettings.Timing timing() {
        return new QqBotSettings.Timing(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofMillis(20), Duration.ofSeconds(3),
                Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(60));
    }

    /** Forgets everything of the last test (one fake serves a whole test class); call before each test. */
    synchronized void reset() {
        WsContext ws = current;
        current = null;
        if (ws != null) {
            ws.closeSession(1000, "reset");
        }
        received.clear();
        posts.clear();
        refused.clear();
        uploads.clear();
        tokensIssued.clear();
        failNext.clear();
        media.clear();
        heartbeatInterval = 1_000;
        expiresIn = "7200";
        invalidateNextResume = false;
        validTokens.clear();
        dispatchedMsgIds.clear();
        usedSeqs.clear();
        history.clear();
        sessions.set(0);
        sessionId = null;
        seq = 0;
    }

    /** A Herald process on this fake, its reply ledger in the fixture's store; started once it identified and is connected. */
    static GatewayFixture herald(FakeQqGateway fake, String... allowedUsers) {
        GatewayFixture[] self = new GatewayFixture[1];
        self[0] = new GatewayFixture(clock -> new QqBotAdapter(fake.settings(SECRET), timing(), self[0].storage.platformState(), clock))
                .allow(allowedUsers).readyWhen(() -> !fake.sent(2).isEmpty() && fake.connected());
        return self[0];
    }

    // ---- driving the gateway ------------------------------------------------------------------

    synchronized long dispatch(String type, JsonNode d) {
        seq++;
        ObjectNode p = JSON.createObjectNode().put("op", 0).put("id", type + ":" + seq).put("t", type).put("s", seq);
        p.set("d", d);
        history.add(p);
        if (d.hasNonNull("id")) {
            dispatchedMsgIds.add(d.get("id").asText());
        }
        WsContext ws = current;
        if (ws != null) {
            send(ws, p);
        }
        return seq;
    }

    /** A dispatch sent but lost with the connection: only a RESUME replays it. */
    synchronized long lostInFlight(String type, JsonNode d) {
        WsContext ws = current;
        current = null;
        long s = dispatch(type, d);
        current = ws;
        return s;
    }

    synchronized long lastSeq() {
        return seq;
    }

    long c2c(String msgId, String openid, String content) {
        return dispatch("C2C_MESSAGE_CREATE", c2cJson(msgId, openid, content, Duration.ZERO));
    }

    long group(String msgId, String groupOpenid, String memberOpenid, String content) {
        return dispatch("GROUP_AT_MESSAGE_CREATE", groupJson(msgId, groupOpenid, memberOpenid, content, Duration.ZERO));
    }

    static ObjectNode c2cJson(String msgId, String openid, String content, Duration age) {
        ObjectNode d = JSON.createObjectNode().put("id", msgId).put("content", content).put("timestamp", stamp(age));
        d.putObject("author").put("id", openid).put("user_openid", openid).put("union_openid", "union-" + openid);
        return d;
    }

    static ObjectNode groupJson(String msgId, String groupOpenid, String memberOpenid, String content, Duration age) {
        // QQ removes the bot's @ from the content and leaves the space after it
        ObjectNode d = JSON.createObjectNode().put("id", msgId).put("content", " " + content).put("timestamp", stamp(age))
                .put("group_id", groupOpenid).put("group_openid", groupOpenid);
        d.putObject("author").put("id", memberOpenid).put("member_openid", memberOpenid).put("union_openid", "union-" + memberOpenid);
        return d;
    }

    private static String stamp(Duration age) {
        return OffsetDateTime.now(ZoneOffset.ofHours(8)).minus(age).withNano(0).toString();
    }

    /** The server drops the connection with a resumable close code. */
    void drop() {
        WsContext ws = current;
        current = null;
        if (ws != null) {
            ws.closeSession(4009, "session timed out");
        }
    }

    /** Makes every token issued so far invalid, as if it had expired. */
    void expireTokens() {
        validTokens.clear();
    }

    boolean connected() {
        return current != null;
    }

    boolean raw(String frame) {
        WsContext ws = current;
        if (ws == null) {
            return false;
        }
        ws.send(frame);
        return true;
    }

    List<JsonNode> sent(int op) {
        return received.stream().filter(p -> p.path("op").asInt() == op).toList();
    }

    List<Post> postsTo(String chat) {
        return posts.stream().filter(p -> p.chat().equals(chat)).toList();
    }

    // ---- server side ----------------------------------------------------------------------------

    private void token(Context ctx) throws Exception {
        JsonNode b = JSON.readTree(ctx.body());
        if (!APP_ID.equals(b.path("appId").asText()) || !SECRET.equals(b.path("clientSecret").asText())) {
            ctx.status(200).contentType("application/json").result("{\"code\":100016,\"message\":\"invalid appid or secret\"}");
            return;
        }
        String t = "tok-" + (tokensIssued.size() + 1) + "-" + Long.toHexString(System.nanoTime());
        tokensIssued.add(t);
        validTokens.add(t);
        ctx.contentType("application/json").result(JSON.createObjectNode().put("access_token", t).put("expires_in", expiresIn).toString());
    }

    private boolean authorized(Context ctx) {
        String h = ctx.header("Authorization");
        if (h != null && h.startsWith("QQBot ") && validTokens.contains(h.substring(6))) {
            return true;
        }
        ctx.status(401).contentType("application/json").result("{\"code\":11244,\"message\":\"token not exist or expire\"}");
        return false;
    }

    private void gateway(WsConfig ws) {
        ws.onConnect(ctx -> {
            current = ctx;
            send(ctx, JSON.createObjectNode().put("op", 10).set("d", JSON.createObjectNode().put("heartbeat_interval", heartbeatInterval)));
        });
        ws.onMessage(ctx -> {
            JsonNode p = JSON.readTree(ctx.message());
            received.add(p);
            switch (p.path("op").asInt()) {
                case 1 -> send(ctx, JSON.createObjectNode().put("op", 11));
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

    private boolean validGatewayToken(JsonNode d) {
        String t = d.path("token").asText();
        return t.startsWith("QQBot ") && validTokens.contains(t.substring(6));
    }

    private void identify(WsContext ctx, JsonNode d) {
        if (!validGatewayToken(d)) {
            ctx.closeSession(4004, "invalid token");
            return;
        }
        synchronized (this) {
            sessionId = "qq-session-" + sessions.incrementAndGet();
            history.clear();
            seq = 0;
        }
        ObjectNode ready = JSON.createObjectNode().put("version", 1).put("session_id", sessionId);
        ready.putObject("user").put("id", "bot-1").put("username", "herald-bot").put("bot", true);
        ready.putArray("shard").add(0).add(1);
        dispatch("READY", ready);
    }

    private void resume(WsContext ctx, JsonNode d) {
        List<ObjectNode> replay;
        synchronized (this) {
            boolean valid = validGatewayToken(d) && d.path("session_id").asText().equals(sessionId);
            if (!valid || invalidateNextResume) {
                invalidateNextResume = false;
                send(ctx, JSON.createObjectNode().put("op", 9).put("d", false));
                return;
            }
            long from = d.path("seq").asLong();
            replay = history.stream().filter(p -> p.path("s").asLong() > from).toList();
        }
        replay.forEach(p -> send(ctx, p));
        dispatch("RESUMED", JSON.createObjectNode());
    }

    private void message(Context ctx, String kind) throws Exception {
        if (!authorized(ctx)) {
            return;
        }
        Integer fail = failNext.poll();
        if (fail != null) {
            ctx.status(fail).contentType("application/json").result("{\"code\":" + fail + ",\"message\":\"try later\"}");
            return;
        }
        JsonNode b = JSON.readTree(ctx.body());
        String content = b.path("msg_type").asInt() == 2 ? b.path("markdown").path("content").asText() : b.path("content").asText();
        Post post = new Post(kind, kind + ":" + ctx.pathParam("id"), content, b.path("msg_type").asInt(-1), b.path("msg_id").asText(null),
                b.path("msg_seq").asInt(1), ctx.header("Authorization"), b);
        if (post.msgId() != null && !dispatchedMsgIds.contains(post.msgId())) {
            refused.add(post);
            ctx.status(400).contentType("application/json").result("{\"code\":40034025,\"message\":\"msg_id invalid\"}");
            return;
        }
        if (post.msgId() != null && !usedSeqs.add(post.msgId() + "#" + post.msgSeq())) {
            refused.add(post);
            ctx.status(400).contentType("application/json").result("{\"code\":40054005,\"message\":\"消息被去重，请检查请求msgseq\"}");
            return;
        }
        posts.add(post);
        ctx.contentType("application/json").result(JSON.createObjectNode().put("id", "sent-" + ids.incrementAndGet())
                .put("timestamp", OffsetDateTime.now().toString()).toString());
    }

    private void upload(Context ctx, String kind) throws Exception {
        if (!authorized(ctx)) {
            return;
        }
        JsonNode b = JSON.readTree(ctx.body());
        String info = "file-info-" + ids.incrementAndGet();
        uploads.add(new Upload(kind, kind + ":" + ctx.pathParam("id"), b.path("file_type").asInt(), Base64.getDecoder()
                .decode(b.path("file_data").asText("")), info));
        ctx.contentType("application/json").result(JSON.createObjectNode().put("file_uuid", "uuid-" + info).put("file_info", info)
                .put("ttl", 3600).toString());
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
