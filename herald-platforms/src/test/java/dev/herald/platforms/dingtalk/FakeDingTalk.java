package dev.herald.platforms.dingtalk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.MultipartForm;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for DingTalk, written for these tests from the Stream mode and robot API documentation:
 * {@code gateway/connections/open} (an endpoint on this fake and a single-use ticket; a WebSocket with any other
 * ticket is closed), the Stream WebSocket (frames {@code {specVersion, type, headers, data}} it sends on demand, and
 * the acknowledgements it receives), {@code oauth2/accessToken} (tokens that can be revoked), the robot send APIs
 * ({@code oToMessages/batchSend}, {@code groupMessages/send}), session webhooks ({@code /robot/sendBySession}) that can
 * be expired, {@code messageFiles/download} with the file server it points at, and the older API's {@code media/upload}. Everything it receives is recorded.
 */
final class FakeDingTalk implements AutoCloseable {
    static final String CLIENT_ID = "dingfakeclientid";
    static final String CLIENT_SECRET = "fake-client-secret-0123456789";
    static final String BOT_USER = "$:LWCP_v1:$botuser";
    static final ObjectMapper JSON = new ObjectMapper();

    /** One message that reached a chat: how it went (webhook, dm, group), where to, its msgtype/msgKey and text. */
    record Sent(String via, String to, String type, String title, String text) {
    }

    final List<Sent> sent = new CopyOnWriteArrayList<>();

    /** One file uploaded to media/upload. */
    record Upload(String type, String fileName, byte[] bytes, String mediaId) {
    }

    final List<Upload> uploads = new CopyOnWriteArrayList<>();
    /** Every frame Herald sent on a Stream connection, parsed. */
    final List<JsonNode> acks = new CopyOnWriteArrayList<>();
    final List<String> tickets = new CopyOnWriteArrayList<>();
    final List<JsonNode> openRequests = new CopyOnWriteArrayList<>();
    final AtomicInteger tokensIssued = new AtomicInteger();
    final AtomicInteger apiSendAttempts = new AtomicInteger();
    final Map<String, byte[]> files = new ConcurrentHashMap<>();
    final Set<String> expiredSessions = ConcurrentHashMap.newKeySet();
    /** The token lifetime the next accessToken answer declares, in seconds. */
    volatile long expireIn = 7200;
    /** When set, downloadUrl answers point here (with {@code {code}}) instead of this fake. */
    volatile String downloadUrlTemplate;

    private final Set<String> validTokens = ConcurrentHashMap.newKeySet();
    private final Set<String> unusedTickets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger frames = new AtomicInteger();
    private final List<WsContext> open = new CopyOnWriteArrayList<>();
    private final Javalin app;
    private volatile WsContext current;
    private volatile dev.herald.web.WebServer web;
    private volatile String callback;
    private final java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();

    FakeDingTalk() {
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.post("/v1.0/gateway/connections/open", this::openConnection);
            config.routes.post("/v1.0/oauth2/accessToken", this::accessToken);
            config.routes.post("/v1.0/robot/oToMessages/batchSend", ctx -> robotSend(ctx, false));
            config.routes.post("/v1.0/robot/groupMessages/send", ctx -> robotSend(ctx, true));
            config.routes.post("/v1.0/robot/messageFiles/download", this::download);
            config.routes.post("/robot/sendBySession", this::webhook);
            config.routes.post("/media/upload", this::upload);
            config.routes.get("/files/{code}", ctx -> {
                byte[] b = files.get(ctx.pathParam("code"));
                if (b == null) {
                    ctx.status(404).result("no such file");
                } else {
                    ctx.contentType("image/png").result(b);
                }
            });
            config.routes.ws("/connect", ws -> {
                ws.onConnect(ctx -> {
                    String ticket = ctx.queryParam("ticket");
                    if (ticket == null || !unusedTickets.remove(ticket)) {
                        ctx.closeSession(4001, "invalid ticket");
                        return;
                    }
                    ctx.session.setIdleTimeout(Duration.ofMinutes(5));
                    open.add(ctx);
                    current = ctx;
                });
                ws.onMessage(ctx -> acks.add(JSON.readTree(ctx.message())));
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

    DingTalkSettings settings() {
        return DingTalkSettings.of(CLIENT_ID, CLIENT_SECRET).withApiBase(URI.create("http://127.0.0.1:" + port()));
    }

    static DingTalkSettings.Timing timing() {
        return new DingTalkSettings.Timing(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(3), Duration.ofSeconds(70),
                Duration.ofSeconds(3), Duration.ofHours(1));
    }

    GatewayFixture herald(String... allowedUsers) {
        return herald(settings(), allowedUsers);
    }

    GatewayFixture herald(DingTalkSettings s, String... allowedUsers) {
        return new GatewayFixture(clock -> new DingTalkAdapter(s, timing(), clock)).allow(allowedUsers).readyWhen(this::connected).closing(this);
    }

    /** Herald in http mode: its callback served on a loopback web server of its own, replaced with each process. */
    GatewayFixture heraldOverHttp(String... allowedUsers) {
        DingTalkSettings s = settings().withMode(DingTalkSettings.HTTP);
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> httpAdapter(s, clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    private synchronized DingTalkAdapter httpAdapter(DingTalkSettings s, java.time.Clock clock, dev.herald.core.platform.PlatformState state) {
        if (web != null) {
            web.close();
        }
        dev.herald.web.WebServer w = new dev.herald.web.WebServer(dev.herald.web.WebServer.Settings.ephemeral());
        dev.herald.core.platform.PlatformContext context = new dev.herald.core.platform.PlatformContext(DingTalkAdapter.PLATFORM, clock,
                java.nio.file.Path.of(System.getProperty("java.io.tmpdir")), state, new dev.herald.core.platform.MediaFetchers(),
                new dev.herald.web.PlatformRoutes(DingTalkAdapter.PLATFORM, w));
        DingTalkAdapter adapter = DingTalkPlugin.create(s, timing(), context);
        w.start();
        web = w;
        callback = w.baseUrl() + "/platforms/dingtalk/robot";
        return adapter;
    }

    /** DingTalk's sign of {@code timestamp} with {@code secret}: Base64(HmacSHA256(secret, timestamp + "\n" + secret)). */
    static String sign(long timestamp, String secret) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
            return java.util.Base64.getEncoder().encodeToString(mac.doFinal((timestamp + "\n" + secret).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** POSTs {@code message} as DingTalk's robot callback does: signed with the app secret, timestamped now; the status. */
    int post(ObjectNode message) {
        long ts = System.currentTimeMillis();
        return post(message.toString(), Map.of("timestamp", Long.toString(ts), "sign", sign(ts, CLIENT_SECRET)));
    }

    int post(String body, Map<String, String> headers) {
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(URI.create(callback)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json; charset=utf-8").POST(java.net.http.HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        try {
            return client.send(b.build(), java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ---- driving ------------------------------------------------------------------------------

    boolean connected() {
        return current != null;
    }

    int openConnections() {
        return open.size();
    }

    /** Sends a frame of {@code type} on {@code topic} with {@code data} on the current connection; returns its messageId. */
    String frame(String type, String topic, String data) {
        String id = "msg-" + frames.incrementAndGet();
        ObjectNode f = JSON.createObjectNode().put("specVersion", "1.0").put("type", type);
        f.putObject("headers").put("messageId", id).put("topic", topic).put("contentType", "application/json")
                .put("time", Long.toString(System.currentTimeMillis())).put("appId", "fake-app");
        f.put("data", data);
        raw(f.toString());
        return id;
    }

    String deliver(ObjectNode robotMessage) {
        return frame("CALLBACK", "/v1.0/im/bot/messages/get", robotMessage.toString());
    }

    String ping(String opaque) {
        return frame("SYSTEM", "ping", JSON.createObjectNode().put("opaque", opaque).toString());
    }

    String disconnect() {
        return frame("SYSTEM", "disconnect", JSON.createObjectNode().put("reason", "server restart").toString());
    }

    void raw(String text) {
        WsContext ws = current;
        if (ws == null) {
            throw new IllegalStateException("no stream connection");
        }
        ws.send(text);
    }

    /** The acknowledgement of frame {@code messageId}, if one came. */
    JsonNode ackOf(String messageId) {
        return acks.stream().filter(a -> messageId.equals(a.path("headers").path("messageId").asText())).findFirst().orElse(null);
    }

    /** A 1:1 message from staff {@code user}; its session webhook valid until {@code webhookUntil}. */
    ObjectNode dm(String msgId, String user, String text, Instant webhookUntil) {
        ObjectNode m = base(msgId, "cidDM" + user, "1", user, webhookUntil);
        m.put("msgtype", "text").putObject("text").put("content", text);
        return m;
    }

    /** A group message in {@code conversation} from {@code user}; {@code atBot}: the robot is in its @ list. */
    ObjectNode group(String msgId, String conversation, String user, String text, boolean atBot, Instant webhookUntil) {
        ObjectNode m = base(msgId, conversation, "2", user, webhookUntil).put("isInAtList", atBot).put("conversationTitle", "Team");
        m.put("msgtype", "text").putObject("text").put("content", text);
        return m;
    }

    /** A picture message with {@code downloadCode}. */
    ObjectNode picture(String msgId, String user, String downloadCode) {
        ObjectNode m = base(msgId, "cidDM" + user, "1", user, Instant.now().plusSeconds(3600)).put("msgtype", "picture");
        m.putObject("content").put("downloadCode", downloadCode);
        return m;
    }

    private ObjectNode base(String msgId, String conversation, String type, String user, Instant webhookUntil) {
        return JSON.createObjectNode().put("msgId", msgId).put("conversationId", conversation).put("conversationType", type)
                .put("senderStaffId", user).put("senderId", "$:LWCP_v1:$" + user).put("senderNick", "Nick " + user)
                .put("chatbotUserId", BOT_USER).put("robotCode", CLIENT_ID).put("createAt", System.currentTimeMillis())
                .put("sessionWebhook", "http://127.0.0.1:" + port() + "/robot/sendBySession?session=S-" + msgId)
                .put("sessionWebhookExpiredTime", webhookUntil.toEpochMilli());
    }

    /** The server drops the current connection without a disconnect frame. */
    void dropCurrent() {
        WsContext ws = current;
        current = null;
        if (ws != null) {
            ws.closeSession(1011, "server error");
        }
    }

    /** Every access token issued so far stops working (DingTalk answers 401). */
    void revokeTokens() {
        validTokens.clear();
    }

    List<Sent> sentTo(String to) {
        return sent.stream().filter(s -> s.to().equals(to)).toList();
    }

    // ---- server side --------------------------------------------------------------------------

    private void openConnection(Context ctx) throws Exception {
        JsonNode b = JSON.readTree(ctx.body());
        openRequests.add(b);
        if (!CLIENT_ID.equals(b.path("clientId").asText()) || !CLIENT_SECRET.equals(b.path("clientSecret").asText())) {
            json(ctx, 401, Map.of("code", "InvalidAuthentication", "message", "clientId or clientSecret is invalid"));
            return;
        }
        String ticket = "ticket-" + java.util.UUID.randomUUID();
        tickets.add(ticket);
        unusedTickets.add(ticket);
        json(ctx, 200, Map.of("endpoint", "ws://127.0.0.1:" + port() + "/connect", "ticket", ticket));
    }

    private void accessToken(Context ctx) throws Exception {
        JsonNode b = JSON.readTree(ctx.body());
        if (!CLIENT_ID.equals(b.path("appKey").asText()) || !CLIENT_SECRET.equals(b.path("appSecret").asText())) {
            json(ctx, 400, Map.of("code", "invalidClientIdOrSecret", "message", "wrong appKey or appSecret"));
            return;
        }
        String token = "token-" + tokensIssued.incrementAndGet();
        validTokens.add(token);
        json(ctx, 200, Map.of("accessToken", token, "expireIn", expireIn));
    }

    private void robotSend(Context ctx, boolean group) throws Exception {
        apiSendAttempts.incrementAndGet();
        if (!validTokens.contains(String.valueOf(ctx.header("x-acs-dingtalk-access-token")))) {
            json(ctx, 401, Map.of("code", "InvalidAuthentication", "message", "token is not valid"));
            return;
        }
        JsonNode b = JSON.readTree(ctx.body());
        if (!CLIENT_ID.equals(b.path("robotCode").asText())) {
            json(ctx, 400, Map.of("code", "invalidParameter.robotCode", "message", "robot not found"));
            return;
        }
        JsonNode param = JSON.readTree(b.path("msgParam").asText("{}"));
        String key = b.path("msgKey").asText();
        String text = switch (key) {
            case "sampleMarkdown" -> param.path("text").asText();
            case "sampleImageMsg" -> param.path("photoURL").asText();
            case "sampleFile" -> param.path("mediaId").asText() + " " + param.path("fileName").asText() + " " + param.path("fileType").asText();
            default -> param.path("content").asText();
        };
        if (group) {
            sent.add(new Sent("group", b.path("openConversationId").asText(), key, param.path("title").asText(null), text));
            json(ctx, 200, Map.of("processQueryKey", "pqk-" + sent.size()));
        } else {
            sent.add(new Sent("dm", b.path("userIds").path(0).asText(), key, param.path("title").asText(null), text));
            json(ctx, 200, Map.of("processQueryKey", "pqk-" + sent.size(), "invalidStaffIdList", List.of(), "flowControlledStaffIdList", List.of()));
        }
    }

    private void webhook(Context ctx) throws Exception {
        String session = ctx.queryParam("session");
        if (session == null || expiredSessions.contains(session)) {
            json(ctx, 200, Map.of("errcode", 300001, "errmsg", "session expired"));
            return;
        }
        JsonNode b = JSON.readTree(ctx.body());
        String type = b.path("msgtype").asText();
        JsonNode body = b.path(type);
        String text = type.equals("markdown") ? body.path("text").asText() : body.path("content").asText();
        sent.add(new Sent("webhook", session, type, body.path("title").asText(null), text));
        json(ctx, 200, Map.of("errcode", 0, "errmsg", "ok"));
    }

    private void upload(Context ctx) throws Exception {
        if (!validTokens.contains(String.valueOf(ctx.queryParam("access_token")))) {
            json(ctx, 200, Map.of("errcode", 40014, "errmsg", "invalid access_token"));
            return;
        }
        MultipartForm form = MultipartForm.parse(ctx.header("Content-Type"), ctx.bodyAsBytes());
        MultipartForm.FilePart f = form.files().stream().filter(p -> p.field().equals("media")).findFirst().orElse(null);
        if (f == null) {
            json(ctx, 200, Map.of("errcode", 40004, "errmsg", "media missing"));
            return;
        }
        String id = "@lAD" + uploads.size() + "media";
        uploads.add(new Upload(ctx.queryParam("type"), f.fileName(), f.bytes(), id));
        json(ctx, 200, Map.of("errcode", 0, "errmsg", "ok", "type", String.valueOf(ctx.queryParam("type")), "media_id", id));
    }

    private void download(Context ctx) throws Exception {
        if (!validTokens.contains(String.valueOf(ctx.header("x-acs-dingtalk-access-token")))) {
            json(ctx, 401, Map.of("code", "InvalidAuthentication", "message", "token is not valid"));
            return;
        }
        String code = JSON.readTree(ctx.body()).path("downloadCode").asText();
        if (!files.containsKey(code)) {
            json(ctx, 400, Map.of("code", "invalidDownloadCode", "message", "unknown download code"));
            return;
        }
        String t = downloadUrlTemplate;
        json(ctx, 200, Map.of("downloadUrl", t != null ? t.replace("{code}", code) : "http://127.0.0.1:" + port() + "/files/" + code));
    }

    private static void json(Context ctx, int status, Object body) throws Exception {
        ctx.status(status).contentType("application/json").result(JSON.writeValueAsString(body));
    }

    @Override
    public synchronized void close() {
        if (web != null) {
            web.close();
        }
        client.close();
        app.stop();
    }
}
