package dev.herald.platforms.line;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import dev.herald.web.PlatformRoutes;
import dev.herald.web.WebServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local stand-in for the LINE Platform, written for these tests from the Messaging API reference: the API host
 * ({@code POST /v2/bot/message/reply}, {@code POST /v2/bot/message/push} with {@code X-Line-Retry-Key},
 * {@code POST /v2/bot/chat/loading/start}, {@code GET /v2/bot/info}) and the data API host ({@code GET
 * /v2/bot/message/{id}/content}) as two loopback servers, every call checked for the bearer token, errors in LINE's
 * shape ({@code {"message", "details": [{"message", "property"}]}}). Reply tokens are issued with the events the fake
 * posts, taken once and only within {@link #tokenLifetime}; a retry key LINE accepted before is answered 409 and
 * nothing is delivered again. The webhook side signs a body with the channel secret (base64 HMAC-SHA256 in
 * {@code X-Line-Signature}) and POSTs it to Herald's route, as LINE does.
 */
final class FakeLine implements AutoCloseable {
    static final String TOKEN = "fake-line-channel-access-token/Zm9vYmFyYmF6MTIzNDU2Nzg5MA=";
    static final String CHANNEL_SECRET = "0123456789abcdef0123456789abcdef";
    static final String BOT_USER_ID = "U" + "b".repeat(32);
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    /** One message object the chat shows: where it went, how ({@code reply} or {@code push}), and the object as sent. */
    record Delivered(String to, String via, JsonNode message, String id) {
        String text() {
            return message.path("text").asText(null);
        }

        String type() {
            return message.path("type").asText();
        }
    }

    /** One call LINE refused: its path, status and body. */
    record Refused(String path, int status, String message) {
    }

    final List<Delivered> chat = new CopyOnWriteArrayList<>();
    final List<Refused> refused = new CopyOnWriteArrayList<>();
    final List<String> loading = new CopyOnWriteArrayList<>();
    final List<String> contentDownloads = new CopyOnWriteArrayList<>();
    final List<String> retryKeys = new CopyOnWriteArrayList<>();
    /** Content the data API serves, by message id: bytes and type. */
    final Map<String, Object[]> content = new ConcurrentHashMap<>();
    /** Statuses the next reply or push calls answer, one per call (429, 500, 400). */
    final Deque<Integer> errors = new ConcurrentLinkedDeque<>();
    /** How long an issued reply token may be used. */
    volatile Duration tokenLifetime = Duration.ofMinutes(1);
    /** Delay before an accepted push or reply is answered (the messages are delivered at once). */
    volatile Duration answerDelay = Duration.ZERO;

    private final Map<String, Instant> tokens = new ConcurrentHashMap<>();
    private final Map<String, String> acceptedKeys = new ConcurrentHashMap<>();
    private final Map<String, JsonNode> acceptedSent = new ConcurrentHashMap<>();
    private final Set<String> usedTokens = ConcurrentHashMap.newKeySet();
    private final AtomicLong ids = new AtomicLong(461230966842064000L);
    private final LocalJsonServer api;
    private final LocalJsonServer data;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    volatile LineSettings settings;
    private volatile WebServer web;
    private volatile String webhook;
    private volatile MediaFetchers current;

    FakeLine() {
        api = new LocalJsonServer(this::serveApi);
        data = new LocalJsonServer(this::serveData);
        settings = LineSettings.of(api.baseUrl(), data.baseUrl(), TOKEN, CHANNEL_SECRET);
    }

    /** A Herald process per start: the adapter on a fresh API server listener on loopback, as {@code herald run} wires it. */
    GatewayFixture herald(String... allowedUsers) {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    static LineSettings.Timing timing() {
        return new LineSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofMillis(200), Duration.ofSeconds(15));
    }

    private synchronized LineAdapter adapter(Clock clock, PlatformState state) {
        if (web != null) {
            web.close(); // the process before (stopped or crashed) no longer listens
        }
        WebServer w = new WebServer(WebServer.Settings.ephemeral());
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(LineAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")), state, f,
                new PlatformRoutes(LineAdapter.PLATFORM, w));
        LineAdapter adapter = LinePlugin.create(settings, timing(), context);
        w.start();
        web = w;
        webhook = w.baseUrl() + "/platforms/line/webhook";
        current = f;
        return adapter;
    }

    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("line").orElseThrow();
    }

    /** Herald's API server, as LINE's image fetcher would reach it through the public URL. */
    String heraldBase() {
        return web.baseUrl();
    }

    // ---- LINE calling Herald ------------------------------------------------------------------------

    /** POSTs {@code body} to Herald's webhook signed with the channel secret, as LINE does; returns the status. */
    int post(String body) {
        return post(body, signature(CHANNEL_SECRET, body));
    }

    /** POSTs {@code body} with {@code signature} as X-Line-Signature (null: none); returns the status. */
    int post(String body, String signature) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(webhook)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json; charset=utf-8").POST(HttpRequest.BodyPublishers.ofString(body));
        if (signature != null) {
            b.header("X-Line-Signature", signature);
        }
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String signature(String secret, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return Base64.getEncoder().encodeToString(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A webhook body carrying {@code events}, as LINE sends it to the bot. */
    static String body(ObjectNode... events) {
        ObjectNode root = LocalJsonServer.JSON.createObjectNode().put("destination", BOT_USER_ID);
        ArrayNode a = root.putArray("events");
        for (ObjectNode e : events) {
            a.add(e);
        }
        return root.toString();
    }

    /** A text message event from {@code user} in a 1:1 chat, with a fresh reply token. */
    ObjectNode text(String user, String eventId, String text) {
        ObjectNode e = event("message", eventId, userSource(user));
        e.putObject("message").put("type", "text").put("id", Long.toString(ids.incrementAndGet())).put("quoteToken", "q" + eventId).put("text", text);
        return e;
    }

    /** A text message event from {@code user} in group {@code group} (a room when it starts with R); {@code mentions} are {@code self}, {@code all} or a user id. */
    ObjectNode groupText(String group, String user, String eventId, String text, String... mentions) {
        boolean room = group.startsWith("R");
        ObjectNode source = LocalJsonServer.JSON.createObjectNode().put("type", room ? "room" : "group").put(room ? "roomId" : "groupId", group)
                .put("userId", user);
        ObjectNode e = event("message", eventId, source);
        ObjectNode m = e.putObject("message").put("type", "text").put("id", Long.toString(ids.incrementAndGet())).put("text", text);
        if (mentions.length > 0) {
            ArrayNode who = m.putObject("mention").putArray("mentionees");
            for (String w : mentions) {
                String at = w.equals("self") ? "@Herald" : w.equals("all") ? "@All" : "@Bob";
                int index = text.indexOf(at);
                ObjectNode x = who.addObject().put("index", Math.max(0, index)).put("length", at.length());
                if (w.equals("all")) {
                    x.put("type", "all");
                } else {
                    x.put("type", "user").put("userId", w.equals("self") ? BOT_USER_ID : w).put("isSelf", w.equals("self"));
                }
            }
        }
        return e;
    }

    /** An image (or {@code file}) message event from {@code user} whose content is message {@code messageId}. */
    ObjectNode media(String user, String eventId, String type, String messageId, String fileName) {
        ObjectNode e = event("message", eventId, userSource(user));
        ObjectNode m = e.putObject("message").put("type", type).put("id", messageId);
        if (type.equals("file")) {
            m.put("fileName", fileName).put("fileSize", 2138);
        } else {
            m.putObject("contentProvider").put("type", "line");
        }
        return e;
    }

    /** A postback event (a pressed quick-reply button) from {@code user} carrying {@code data}. */
    ObjectNode postback(String user, String eventId, String data) {
        ObjectNode e = event("postback", eventId, userSource(user));
        e.putObject("postback").put("data", data);
        return e;
    }

    ObjectNode follow(String user, String eventId) {
        ObjectNode e = event("follow", eventId, userSource(user));
        e.putObject("follow").put("isUnblocked", false);
        return e;
    }

    private static ObjectNode userSource(String user) {
        return LocalJsonServer.JSON.createObjectNode().put("type", "user").put("userId", user);
    }

    private ObjectNode event(String type, String eventId, ObjectNode source) {
        ObjectNode e = LocalJsonServer.JSON.createObjectNode().put("type", type);
        if (!type.equals("unfollow") && !type.equals("leave")) {
            String token = java.util.UUID.randomUUID().toString().replace("-", "");
            tokens.put(token, Instant.now());
            tokenChat.put(token, source.path("groupId").asText(source.path("roomId").asText(source.path("userId").asText(""))));
            e.put("replyToken", token);
        }
        e.put("mode", "active").put("timestamp", System.currentTimeMillis()).put("webhookEventId", eventId);
        e.putObject("deliveryContext").put("isRedelivery", false);
        e.set("source", source);
        return e;
    }

    /** {@code event} as LINE delivers it again: the same webhookEventId and reply token, marked as a redelivery. */
    static ObjectNode redelivered(ObjectNode event) {
        ObjectNode again = event.deepCopy();
        again.putObject("deliveryContext").put("isRedelivery", true);
        return again;
    }

    // ---- the API --------------------------------------------------------------------------------------

    List<Delivered> chatWith(String to) {
        return chat.stream().filter(d -> d.to().equals(to)).toList();
    }

    private void serveApi(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            if (!("Bearer " + TOKEN).equals(x.getRequestHeaders().getFirst("Authorization"))) {
                error(x, path, 401, "Authentication failed. Confirm that the access token in the authorization header is valid.", null);
                return;
            }
            switch (x.getRequestMethod() + " " + path) {
                case "GET /v2/bot/info" -> LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("userId", BOT_USER_ID)
                        .put("basicId", "@216ru" + "dkd").put("displayName", "Herald").put("chatMode", "bot").put("markAsReadMode", "auto"));
                case "POST /v2/bot/message/reply" -> send(x, path, false);
                case "POST /v2/bot/message/push" -> send(x, path, true);
                case "POST /v2/bot/chat/loading/start" -> {
                    JsonNode b = LocalJsonServer.JSON.readTree(x.getRequestBody());
                    String chatId = b.path("chatId").asText("");
                    int seconds = b.path("loadingSeconds").asInt(20);
                    if (!chatId.matches("U[0-9a-f]{32}") || seconds < 5 || seconds > 60 || seconds % 5 != 0) {
                        error(x, path, 400, "The request body has 1 error(s)", "chatId: Must be a user id in a one-on-one chat");
                        return;
                    }
                    loading.add(chatId);
                    LocalJsonServer.reply(x, 202, LocalJsonServer.JSON.createObjectNode());
                }
                default -> error(x, path, 404, "Not found", null);
            }
        }
    }

    private synchronized void send(HttpExchange x, String path, boolean push) throws IOException {
        JsonNode b = LocalJsonServer.JSON.readTree(x.getRequestBody());
        String key = x.getRequestHeaders().getFirst("X-Line-Retry-Key");
        Integer forced = errors.poll();
        if (forced != null) {
            switch (forced) {
                case 429 -> error(x, path, 429, "The API rate limit has been exceeded. Try again later.", null);
                case 400 -> error(x, path, 400, "The request body has 1 error(s)", "messages[0].text: May not be empty");
                default -> error(x, path, forced, "An error occurred in the LINE Platform", null);
            }
            return;
        }
        String to;
        if (push) {
            to = b.path("to").asText("");
            if (key != null && !UUID.matcher(key).matches()) {
                error(x, path, 400, "The value of the X-Line-Retry-Key header is invalid", null);
                return;
            }
            if (key != null) {
                retryKeys.add(key);
                if (acceptedKeys.containsKey(key)) {
                    x.getResponseHeaders().add("x-line-accepted-request-id", acceptedKeys.get(key));
                    refused.add(new Refused(path, 409, "The retry key is already accepted"));
                    ObjectNode answer = LocalJsonServer.JSON.createObjectNode().put("message", "The retry key is already accepted");
                    answer.set("sentMessages", acceptedSent.get(key));
                    LocalJsonServer.reply(x, 409, answer);
                    return;
                }
            }
        } else {
            if (key != null) {
                error(x, path, 400, "The X-Line-Retry-Key header cannot be specified for this API", null);
                return;
            }
            String token = b.path("replyToken").asText("");
            Instant issued = tokens.get(token);
            if (issued == null || !usedTokens.add(token) || Instant.now().isAfter(issued.plus(tokenLifetime))) {
                error(x, path, 400, "Invalid reply token", null);
                return;
            }
            to = tokenChat.getOrDefault(token, "?");
        }
        JsonNode messages = b.path("messages");
        if (!messages.isArray() || messages.isEmpty() || messages.size() > 5) {
            error(x, path, 400, "The request body has 1 error(s)", "messages: Size must be between 1 and 5");
            return;
        }
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            if (m.path("type").asText().equals("text") && (m.path("text").asText("").isEmpty() || m.path("text").asText().length() > 5000)) {
                error(x, path, 400, "The request body has 1 error(s)", "messages[" + i + "].text: Length must be between 1 and 5000");
                return;
            }
            if (m.path("type").asText().equals("image") && !m.path("originalContentUrl").asText("").startsWith("https://")) {
                error(x, path, 400, "The request body has 1 error(s)", "messages[" + i + "].originalContentUrl: must be https");
                return;
            }
        }
        String requestId = java.util.UUID.randomUUID().toString();
        ArrayNode sent = LocalJsonServer.JSON.createArrayNode();
        for (JsonNode m : messages) {
            String id = Long.toString(ids.incrementAndGet());
            chat.add(new Delivered(to, push ? "push" : "reply", m, id));
            sent.addObject().put("id", id).put("quoteToken", "qt" + id);
        }
        if (key != null) {
            acceptedKeys.put(key, requestId);
            acceptedSent.put(key, sent);
        }
        if (!answerDelay.isZero()) {
            try {
                Thread.sleep(answerDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        x.getResponseHeaders().add("x-line-request-id", requestId);
        ObjectNode answer = LocalJsonServer.JSON.createObjectNode();
        answer.set("sentMessages", sent);
        LocalJsonServer.reply(x, 200, answer);
    }

    /** The chat each reply token answers into: the source of the event it came with. */
    private final Map<String, String> tokenChat = new ConcurrentHashMap<>();

    /** Expires every reply token issued so far (as a minute passing would). */
    void expireTokens() {
        tokens.replaceAll((t, at) -> Instant.EPOCH);
    }

    private void serveData(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            java.util.regex.Matcher m = Pattern.compile("/v2/bot/message/([0-9]+)/content").matcher(path);
            contentDownloads.add(path + " auth=" + x.getRequestHeaders().getFirst("Authorization"));
            if (!("Bearer " + TOKEN).equals(x.getRequestHeaders().getFirst("Authorization"))) {
                error(x, path, 401, "Authentication failed.", null);
                return;
            }
            if (!x.getRequestMethod().equals("GET") || !m.matches() || !content.containsKey(m.group(1))) {
                error(x, path, 404, "Not found", null);
                return;
            }
            Object[] c = content.get(m.group(1));
            byte[] bytes = (byte[]) c[0];
            x.getResponseHeaders().add("Content-Type", (String) c[1]);
            x.sendResponseHeaders(200, bytes.length);
            x.getResponseBody().write(bytes);
        }
    }

    private void error(HttpExchange x, String path, int status, String message, String detail) throws IOException {
        if (status != 409) {
            refused.add(new Refused(path, status, message));
        }
        ObjectNode e = LocalJsonServer.JSON.createObjectNode().put("message", message);
        if (detail != null) {
            int colon = detail.indexOf(':');
            e.putArray("details").addObject().put("message", detail.substring(colon + 1).strip()).put("property", detail.substring(0, colon));
        }
        LocalJsonServer.reply(x, status, e);
    }

    @Override
    public synchronized void close() {
        if (web != null) {
            web.close();
        }
        api.close();
        data.close();
        client.close();
    }
}
