package dev.herald.platforms.feishu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.PlatformContext;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import dev.herald.platforms.MultipartForm;
import dev.herald.web.PlatformRoutes;
import dev.herald.web.WebServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local stand-in for the Feishu / Lark open platform, written for these tests from its server API documentation:
 * {@code POST /open-apis/auth/v3/tenant_access_token/internal} (app_id and app_secret checked; a token with
 * {@code expire}), {@code GET /open-apis/bot/v3/info}, {@code POST /open-apis/im/v1/messages?receive_id_type=chat_id}
 * and {@code POST /open-apis/im/v1/messages/{id}/reply} (the Bearer token checked: 99991663 for an unknown or
 * {@link #expireTokens expired} one; at most one message per {@code uuid}, a repeat answered with the first message),
 * {@code POST /open-apis/im/v1/images} and {@code /files} (multipart uploads answered with keys) and
 * {@code GET /open-apis/im/v1/messages/{id}/resources/{key}?type=}. Every answer has the platform's {@code code}/{@code msg}.
 * The event side encrypts an event as the "接收事件" page says (its own implementation: SHA-256 key, random IV,
 * AES-256-CBC, PKCS#7), signs it with {@code X-Lark-Signature} and POSTs it to Herald's request URL.
 */
final class FakeFeishu implements AutoCloseable {
    static final String APP_ID = "cli_a5f3c2e1b0d94e7f";
    static final String SECRET = "fakeAppSecret8Hq2LxWz0pVb7KdR3";
    static final String TOKEN = "fakeVerificationToken27Qp";
    static final String ENCRYPT_KEY = "fakeEncryptKey5Tg9Yh";
    static final String BOT = "ou_bot0000000000000000000000000001";

    /** One message the platform accepted: the chat, the type, the parsed content, the uuid and what it replied to. */
    record Sent(String id, String chatId, String type, JsonNode content, String uuid, String replyTo, boolean inThread) {
        /** The text of a text message, or the md run of a post. */
        String text() {
            if (type.equals("text")) {
                return content.path("text").asText(null);
            }
            return content.path("zh_cn").path("content").path(0).path(0).path("text").asText(null);
        }
    }

    record Upload(String key, String kind, String fileType, String fileName, byte[] bytes) {
    }

    final List<Sent> sent = new CopyOnWriteArrayList<>();
    final List<Upload> uploads = new CopyOnWriteArrayList<>();
    final List<String> resourceGets = new CopyOnWriteArrayList<>();
    final AtomicInteger tokenCalls = new AtomicInteger();
    final AtomicInteger sendCalls = new AtomicInteger();
    /** The uuid of every send or reply the fake accepted or answered with an earlier message, in order. */
    final List<String> uuids = new CopyOnWriteArrayList<>();
    /** Codes the next send/reply calls answer, one per call. */
    final Deque<Integer> errors = new ConcurrentLinkedDeque<>();
    /** Resources by message id + "/" + key: bytes and content type. */
    final Map<String, Object[]> resources = new ConcurrentHashMap<>();
    /** While set, bot/v3/info answers HTTP 500 (the bot's open_id cannot be learned). */
    volatile boolean botInfoDown;
    private final Map<String, Sent> byUuid = new ConcurrentHashMap<>();
    private final Map<String, String> chatOf = new ConcurrentHashMap<>();
    private final Set<String> valid = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ids = new AtomicInteger(1);

    private final LocalJsonServer server;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    volatile FeishuSettings settings;
    private volatile WebServer web;
    private volatile String callback;
    private volatile MediaFetchers current;
    private volatile FakeFeishuLongConnection longConnection;

    FakeFeishu() {
        server = new LocalJsonServer(this::serve);
        settings = FeishuSettings.of(server.baseUrl(), APP_ID, SECRET, TOKEN, ENCRYPT_KEY);
    }

    String baseUrl() {
        return server.baseUrl();
    }

    static FeishuSettings.Timing timing() {
        return new FeishuSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMillis(200), Duration.ofMillis(100),
                Duration.ofMillis(50), Duration.ofMillis(300));
    }

    /** Herald in websocket mode against this fake's long connection, ready once it is connected. */
    GatewayFixture heraldOverLongConnection(String... allowedUsers) {
        FakeFeishuLongConnection ws = longConnection();
        settings = settings.withMode(FeishuSettings.WEBSOCKET);
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).readyWhen(ws::connected)
                .closing(this);
        return holder[0];
    }

    /** The long-connection side of the platform, started on first use. */
    synchronized FakeFeishuLongConnection longConnection() {
        if (longConnection == null) {
            longConnection = new FakeFeishuLongConnection();
        }
        return longConnection;
    }

    GatewayFixture herald(String... allowedUsers) {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    private synchronized FeishuAdapter adapter(Clock clock, dev.herald.core.platform.PlatformState state) {
        if (web != null) {
            web.close();
        }
        WebServer w = new WebServer(WebServer.Settings.ephemeral());
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(FeishuAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")), state, f,
                new PlatformRoutes(FeishuAdapter.PLATFORM, w));
        FeishuAdapter adapter = FeishuPlugin.create(settings, timing(), context);
        w.start();
        web = w;
        callback = w.baseUrl() + "/platforms/feishu/events";
        current = f;
        return adapter;
    }

    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("feishu").orElseThrow();
    }

    /** Makes every token handed out so far invalid: the next call with one gets code 99991663. */
    void expireTokens() {
        valid.clear();
    }

    // ---- the platform calling Herald ---------------------------------------------------------------------

    /** A schema 2.0 im.message.receive_v1 event. */
    static String message(String eventId, String messageId, String chatId, String chatType, String user, String type, String content,
            String... mentionedOpenIds) {
        ObjectNode root = LocalJsonServer.JSON.createObjectNode().put("schema", "2.0");
        root.putObject("header").put("event_id", eventId).put("event_type", "im.message.receive_v1")
                .put("create_time", Long.toString(Instant.now().toEpochMilli())).put("token", TOKEN).put("app_id", APP_ID)
                .put("tenant_key", "2ca1d211f64f6438");
        ObjectNode e = root.putObject("event");
        ObjectNode sender = e.putObject("sender").put("sender_type", "user").put("tenant_key", "2ca1d211f64f6438");
        sender.putObject("sender_id").put("open_id", user).put("union_id", "on_" + user.substring(3)).put("user_id", "e33ggbyz");
        ObjectNode m = e.putObject("message").put("message_id", messageId).put("create_time", Long.toString(Instant.now().toEpochMilli()))
                .put("chat_id", chatId).put("chat_type", chatType).put("message_type", type).put("content", content);
        ArrayNode mentions = m.putArray("mentions");
        for (int i = 0; i < mentionedOpenIds.length; i++) {
            ObjectNode who = mentions.addObject().put("key", "@_user_" + (i + 1)).put("name", mentionedOpenIds[i].equals(BOT) ? "Herald" : "Bob")
                    .put("tenant_key", "2ca1d211f64f6438");
            who.putObject("id").put("open_id", mentionedOpenIds[i]).put("union_id", "on_x").put("user_id", "u" + i);
        }
        return root.toString();
    }

    static String text(String eventId, String messageId, String chatId, String chatType, String user, String text, String... mentions) {
        return message(eventId, messageId, chatId, chatType, user, "text", LocalJsonServer.JSON.createObjectNode().put("text", text).toString(),
                mentions);
    }

    /** The same message in a thread: thread_id set, root_id the thread's first message. */
    static String inThread(String event, String rootId) {
        try {
            ObjectNode root = (ObjectNode) LocalJsonServer.JSON.readTree(event);
            ((ObjectNode) root.path("event").path("message")).put("root_id", rootId).put("parent_id", rootId).put("thread_id", "omt_1a2b3c");
            return root.toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A card.action.trigger callback: {@code user} pressed a button with {@code value} on {@code messageId} in {@code chatId}. */
    static String cardPress(String eventId, String user, String chatId, String messageId, JsonNode value) {
        ObjectNode root = LocalJsonServer.JSON.createObjectNode().put("schema", "2.0");
        root.putObject("header").put("event_id", eventId).put("event_type", "card.action.trigger")
                .put("create_time", Long.toString(Instant.now().toEpochMilli() * 1000)).put("token", TOKEN).put("app_id", APP_ID)
                .put("tenant_key", "2ca1d211f64f6438");
        ObjectNode e = root.putObject("event");
        e.putObject("operator").put("tenant_key", "2ca1d211f64f6438").put("user_id", "e33ggbyz").put("open_id", user).put("union_id", "on_x");
        e.put("token", "c-295ee57216a5dc9de90fefd0aadb4b1d7d337a1d");
        e.putObject("action").put("tag", "button").set("value", value);
        e.put("host", "im_message");
        e.putObject("context").put("open_message_id", messageId).put("open_chat_id", chatId);
        return root.toString();
    }

    /** {@code plain} encrypted as the platform does: Base64(IV + AES-256-CBC/PKCS#7 with key SHA-256(encryptKey)). */
    static String encrypt(String plain, String encryptKey) {
        try {
            byte[] key = MessageDigest.getInstance("SHA-256").digest(encryptKey.getBytes(StandardCharsets.UTF_8));
            byte[] iv = new byte[16];
            new SecureRandom().nextBytes(iv);
            Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
            byte[] ct = c.doFinal(plain.getBytes(StandardCharsets.UTF_8));
            byte[] all = new byte[16 + ct.length];
            System.arraycopy(iv, 0, all, 0, 16);
            System.arraycopy(ct, 0, all, 16, ct.length);
            return Base64.getEncoder().encodeToString(all);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String sign(String timestamp, String nonce, String encryptKey, String body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest((timestamp + nonce + encryptKey + body).getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String envelope(String encrypted) {
        return LocalJsonServer.JSON.createObjectNode().put("encrypt", encrypted).toString();
    }

    /** POSTs {@code eventJson} as the platform does: encrypted, signed and timestamped now; remembers its message's chat. */
    int post(String eventJson) {
        noteChat(eventJson);
        return post(eventJson, ENCRYPT_KEY, ENCRYPT_KEY, Instant.now()).statusCode();
    }

    HttpResponse<String> post(String eventJson, String encryptWith, String signWith, Instant at) {
        String body = envelope(encrypt(eventJson, encryptWith));
        String ts = Long.toString(at.getEpochSecond());
        String nonce = "n" + (1_000_000 + ids.incrementAndGet());
        return postRaw(body, Map.of("X-Lark-Request-Timestamp", ts, "X-Lark-Request-Nonce", nonce, "X-Lark-Signature",
                sign(ts, nonce, signWith, body)));
    }

    HttpResponse<String> postRaw(String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(callback)).timeout(Duration.ofSeconds(20)).header("Content-Type",
                "application/json; charset=utf-8").POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The URL verification the console sends when the request URL is saved: encrypted with the key, unsigned. */
    HttpResponse<String> verify(String challenge, String token) {
        String plain = LocalJsonServer.JSON.createObjectNode().put("challenge", challenge).put("token", token).put("type", "url_verification")
                .toString();
        return postRaw(envelope(encrypt(plain, ENCRYPT_KEY)), Map.of());
    }

    private void noteChat(String eventJson) {
        try {
            JsonNode m = LocalJsonServer.JSON.readTree(eventJson).path("event").path("message");
            if (m.path("message_id").isTextual() && m.path("chat_id").isTextual()) {
                chatOf.put(m.path("message_id").asText(), m.path("chat_id").asText());
            }
        } catch (IOException | RuntimeException e) {
            // not an event the fake can read (a fuzz input): nothing to remember
        }
    }

    // ---- the open platform's API ---------------------------------------------------------------------

    List<Sent> sentTo(String chatId) {
        return sent.stream().filter(s -> s.chatId().equals(chatId)).toList();
    }

    private static ObjectNode answer(int code, String msg) {
        return LocalJsonServer.JSON.createObjectNode().put("code", code).put("msg", msg);
    }

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            if (path.equals("/callback/ws/endpoint") && longConnection != null && x.getRequestMethod().equals("POST")) {
                longConnection.endpoint(x);
                return;
            }
            if (path.equals("/open-apis/auth/v3/tenant_access_token/internal")) {
                tokenCalls.incrementAndGet();
                JsonNode b = LocalJsonServer.JSON.readTree(x.getRequestBody());
                if (!APP_ID.equals(b.path("app_id").asText()) || !SECRET.equals(b.path("app_secret").asText())) {
                    LocalJsonServer.reply(x, 400, answer(10014, "app secret invalid"));
                    return;
                }
                String t = "t-" + Long.toHexString(System.nanoTime()) + ids.incrementAndGet();
                valid.add(t);
                LocalJsonServer.reply(x, 200, answer(0, "ok").put("tenant_access_token", t).put("expire", 7200));
                return;
            }
            boolean sending = path.startsWith("/open-apis/im/v1/messages") && x.getRequestMethod().equals("POST");
            if (sending) {
                sendCalls.incrementAndGet();
            }
            String auth = x.getRequestHeaders().getFirst("Authorization");
            if (auth == null) {
                LocalJsonServer.reply(x, 400, answer(99991661, "Missing access token for authorization."));
                return;
            }
            if (!auth.startsWith("Bearer ") || !valid.contains(auth.substring(7))) {
                LocalJsonServer.reply(x, 400, answer(99991663, "Invalid access token for authorization. Please make a request with token attached."));
                return;
            }
            if (path.equals("/open-apis/bot/v3/info") && botInfoDown) {
                LocalJsonServer.reply(x, 500, answer(1, "internal error"));
            } else if (path.equals("/open-apis/bot/v3/info")) {
                ObjectNode a = answer(0, "ok");
                a.putObject("bot").put("activate_status", 2).put("app_name", "Herald").put("open_id", BOT).putArray("ip_white_list");
                LocalJsonServer.reply(x, 200, a);
            } else if (path.equals("/open-apis/im/v1/messages") && x.getRequestMethod().equals("POST")) {
                String q = x.getRequestURI().getQuery();
                if (q == null || !q.contains("receive_id_type=chat_id")) {
                    LocalJsonServer.reply(x, 400, answer(99992402, "field validation failed: receive_id_type"));
                    return;
                }
                JsonNode b = LocalJsonServer.JSON.readTree(x.getRequestBody());
                accept(x, b, b.path("receive_id").asText(""), null, false);
            } else if (path.matches("/open-apis/im/v1/messages/om_[A-Za-z0-9_-]+/reply") && x.getRequestMethod().equals("POST")) {
                String id = path.split("/")[5];
                JsonNode b = LocalJsonServer.JSON.readTree(x.getRequestBody());
                String chat = chatOf.get(id);
                if (chat == null) {
                    LocalJsonServer.reply(x, 400, answer(230011, "The message was withdrawn or does not exist."));
                    return;
                }
                accept(x, b, chat, id, b.path("reply_in_thread").asBoolean(false));
            } else if (path.equals("/open-apis/im/v1/images") || path.equals("/open-apis/im/v1/files")) {
                upload(x, path.endsWith("images"));
            } else if (path.matches("/open-apis/im/v1/messages/[^/]+/resources/[^/]+")) {
                String[] p = path.split("/");
                resourceGets.add(p[5] + "/" + p[7]);
                Object[] r = resources.get(p[5] + "/" + p[7]);
                String q = x.getRequestURI().getQuery();
                if (r == null || q == null || !q.equals("type=" + r[2])) {
                    LocalJsonServer.reply(x, 400, answer(234003, "File not in msg."));
                    return;
                }
                byte[] bytes = (byte[]) r[0];
                x.getResponseHeaders().add("Content-Type", (String) r[1]);
                x.sendResponseHeaders(200, bytes.length);
                x.getResponseBody().write(bytes);
            } else {
                LocalJsonServer.reply(x, 404, answer(99991400 + 1000, "not found"));
            }
        }
    }

    private void accept(HttpExchange x, JsonNode b, String chatId, String replyTo, boolean inThread) throws IOException {
        String type = b.path("msg_type").asText("");
        JsonNode content;
        try {
            content = LocalJsonServer.JSON.readTree(b.path("content").asText(""));
        } catch (IOException e) {
            content = null;
        }
        if (!chatId.startsWith("oc_") || content == null || !content.isObject()
                || !Set.of("text", "post", "image", "file", "audio", "media", "interactive").contains(type)) {
            LocalJsonServer.reply(x, 400, answer(230001, "Your request contains an invalid request parameter."));
            return;
        }
        Integer code = errors.poll();
        if (code != null) {
            LocalJsonServer.reply(x, code == 99991400 ? 429 : 400, answer(code, code == 99991400 ? "request trigger frequency limit" : "error"));
            return;
        }
        String uuid = b.path("uuid").asText("");
        uuids.add(uuid);
        Sent s;
        synchronized (this) {
            Sent before = uuid.isEmpty() ? null : byUuid.get(uuid);
            if (before != null) {
                s = before;
            } else {
                s = new Sent("om_sent" + ids.incrementAndGet(), chatId, type, content, uuid, replyTo, inThread);
                sent.add(s);
                chatOf.put(s.id(), chatId);
                if (!uuid.isEmpty()) {
                    byUuid.put(uuid, s);
                }
            }
        }
        ObjectNode a = answer(0, "success");
        a.putObject("data").put("message_id", s.id()).put("chat_id", s.chatId()).put("msg_type", s.type());
        LocalJsonServer.reply(x, 200, a);
    }

    private void upload(HttpExchange x, boolean image) throws IOException {
        MultipartForm form = MultipartForm.parse(x.getRequestHeaders().getFirst("Content-Type"), x.getRequestBody().readAllBytes());
        MultipartForm.FilePart f = form.files().stream().filter(p -> p.field().equals(image ? "image" : "file")).findFirst().orElse(null);
        String fileType = form.fields().getOrDefault("file_type", "");
        if (f == null || image && !"message".equals(form.fields().get("image_type"))
                || !image && (!Set.of("opus", "mp4", "pdf", "doc", "xls", "ppt", "stream").contains(fileType) || form.fields().get("file_name") == null)) {
            LocalJsonServer.reply(x, 400, answer(234001, "Invalid request param."));
            return;
        }
        String key = (image ? "img_v2_" : "file_v2_") + Long.toHexString(System.nanoTime()) + ids.incrementAndGet();
        uploads.add(new Upload(key, image ? "image" : "file", fileType, image ? f.fileName() : form.fields().get("file_name"), f.bytes()));
        ObjectNode a = answer(0, "success");
        a.putObject("data").put(image ? "image_key" : "file_key", key);
        LocalJsonServer.reply(x, 200, a);
    }

    @Override
    public synchronized void close() {
        if (web != null) {
            web.close();
        }
        server.close();
        client.close();
        if (longConnection != null) {
            longConnection.close();
        }
    }
}
