package dev.herald.platforms.waha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.PlatformContext;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local stand-in for a WAHA bridge, written for these tests from WAHA's documentation (waha.devlike.pro: Sessions,
 * Send messages, Events/Webhooks, Security). Its API, every call checked for {@code X-Api-Key}:
 * {@code GET /api/sessions/<name>} ({@code name}, {@code status}, {@code me}), {@code POST /api/sendText},
 * {@code /api/sendImage}, {@code /api/sendFile} (answered with the message, its {@code id} as WEBJS writes it),
 * {@code /api/startTyping}, {@code /api/stopTyping}, {@code /api/sendSeen}, and the files it stored at
 * {@code /api/files/<session>/<file>}. A send while the session is not {@code WORKING} is 422, as WAHA answers. Its
 * webhook side POSTs events in WAHA's envelope ({@code id}, {@code timestamp} in ms, {@code event}, {@code session},
 * {@code me}, {@code payload}, {@code engine}) signed as WAHA signs them: {@code X-Webhook-Hmac} the hex HMAC-SHA512 of
 * the body with the webhook's key, {@code X-Webhook-Hmac-Algorithm: sha512}.
 */
final class FakeWaha implements AutoCloseable {
    static final String SESSION = "default";
    static final String API_KEY = "waha-fake-api-key-8f14e45f";
    static final String HMAC_KEY = "waha-fake-hmac-key-c9f0f895";
    /** The number WAHA's session is logged in as (the bot's own). */
    static final String ME = "4930901820";
    static final String ME_ID = ME + "@c.us";

    /** One call to a send endpoint ({@code sendText}, {@code sendImage}, ...), its body as received. */
    record Call(String method, JsonNode body) {
        String chatId() {
            return body.path("chatId").asText(null);
        }

        String text() {
            return body.path("text").asText(null);
        }
    }

    final List<Call> calls = new CopyOnWriteArrayList<>();
    final List<String> downloads = new CopyOnWriteArrayList<>();
    /** Files the fake serves under /api/files/, by path after it: bytes and type. */
    final Map<String, Object[]> files = new ConcurrentHashMap<>();
    final AtomicInteger sessionPolls = new AtomicInteger();
    volatile String status = "WORKING";
    /** False: WAHA Core, which answers sendImage and sendFile with 422 (files are a WAHA Plus feature). */
    volatile boolean plus = true;
    /** Delay before a send is answered (the message is sent at once). */
    volatile Duration answerDelay = Duration.ZERO;

    private final LocalJsonServer server;
    private final AtomicInteger ids = new AtomicInteger(1000);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    volatile WahaSettings settings;
    private volatile WebServer web;
    private volatile String webhook;
    private volatile MediaFetchers current;

    FakeWaha() {
        server = new LocalJsonServer(this::serve);
        settings = WahaSettings.of(server.baseUrl(), SESSION, API_KEY, HMAC_KEY);
    }

    String url() {
        return server.baseUrl();
    }

    int port() {
        return URI.create(server.baseUrl()).getPort();
    }

    /** A Herald process per start: the adapter on a fresh API server listener on loopback, as {@code herald run} wires it. */
    GatewayFixture herald(String... allowedUsers) {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    static WahaSettings.Timing timing() {
        return timing(Duration.ofMillis(150));
    }

    static WahaSettings.Timing timing(Duration statusInterval) {
        return new WahaSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(10), statusInterval, Duration.ofSeconds(20),
                Duration.ofMillis(300), Duration.ofMinutes(10));
    }

    /** How often the adapters this fake makes poll the session's status. */
    volatile Duration statusInterval = Duration.ofMillis(150);

    private synchronized WahaAdapter adapter(Clock clock, dev.herald.core.platform.PlatformState state) {
        if (web != null) {
            web.close(); // the process before (stopped or crashed) no longer listens
        }
        WebServer w = new WebServer(WebServer.Settings.ephemeral());
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(WahaAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")), state, f,
                new PlatformRoutes(WahaAdapter.PLATFORM, w));
        WahaAdapter adapter = WahaPlugin.create(settings, timing(statusInterval), context);
        w.start();
        web = w;
        webhook = w.baseUrl() + "/platforms/waha/webhook";
        current = f;
        return adapter;
    }

    /** The media fetcher the running process registered. */
    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("waha").orElseThrow();
    }

    // ---- WAHA calling Herald ---------------------------------------------------------------------------

    /** POSTs {@code body} to Herald's webhook signed with the HMAC key, as WAHA does; returns the status. */
    int post(String body) {
        return post(body, hex(hmac(HMAC_KEY, body.getBytes(StandardCharsets.UTF_8))), "sha512");
    }

    /** POSTs {@code body} with {@code signature} as X-Webhook-Hmac (null: none) and {@code algorithm}; returns the status. */
    int post(String body, String signature, String algorithm) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(webhook)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").header("X-Webhook-Request-Id", UUID.randomUUID().toString())
                .header("X-Webhook-Timestamp", Long.toString(System.currentTimeMillis())).POST(HttpRequest.BodyPublishers.ofString(body));
        if (signature != null) {
            b.header("X-Webhook-Hmac", signature);
        }
        if (algorithm != null) {
            b.header("X-Webhook-Hmac-Algorithm", algorithm);
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

    /** WAHA's envelope around {@code payload}, dated {@code at}. */
    static String event(String event, ObjectNode payload, Instant at) {
        ObjectNode root = LocalJsonServer.JSON.createObjectNode().put("id", "evt_" + UUID.randomUUID().toString().replace("-", ""))
                .put("timestamp", at.toEpochMilli()).put("event", event).put("session", SESSION);
        root.putObject("metadata");
        root.putObject("me").put("id", ME_ID).put("pushName", "Herald");
        root.set("payload", payload);
        root.put("engine", "WEBJS");
        root.putObject("environment").put("version", "2025.1.1").put("engine", "WEBJS").put("tier", "CORE");
        return root.toString();
    }

    /** A {@code message} event now. */
    static String message(ObjectNode payload) {
        return event("message", payload, Instant.now());
    }

    /** A person's text in their direct chat with the number. */
    static ObjectNode dm(String from, String shortId, String body) {
        ObjectNode m = base(from + "@c.us", "false_" + from + "@c.us_" + shortId, body);
        m.put("to", ME_ID).putNull("participant");
        return m;
    }

    /** A text in group {@code group} (its id without @g.us) from {@code from}, mentioning {@code mentioned} (ids). */
    static ObjectNode group(String group, String from, String shortId, String body, String... mentioned) {
        ObjectNode m = base(group + "@g.us", "false_" + group + "@g.us_" + shortId + "_" + from + "@c.us", body);
        m.put("to", ME_ID).put("participant", from + "@c.us").put("author", from + "@c.us");
        var list = m.putArray("mentionedIds");
        for (String id : mentioned) {
            list.add(id);
        }
        m.with("_data").putArray("mentionedJidList").addAll(list.deepCopy());
        return m;
    }

    /** {@code m} with a file WAHA stored at {@code /api/files/<session>/<name>} (which the fake then serves). */
    ObjectNode withFile(ObjectNode m, String name, String mimetype, byte[] bytes) {
        files.put(SESSION + "/" + name, new Object[] {bytes, mimetype});
        m.put("hasMedia", true);
        m.putObject("media").put("url", server.baseUrl() + "/api/files/" + SESSION + "/" + name).put("mimetype", mimetype)
                .put("filename", name).putNull("error");
        return m;
    }

    private static ObjectNode base(String from, String id, String body) {
        ObjectNode m = LocalJsonServer.JSON.createObjectNode().put("id", id).put("timestamp", Instant.now().getEpochSecond())
                .put("from", from).put("fromMe", false).put("source", "app").put("body", body).put("hasMedia", false).putNull("media")
                .put("ack", 1).put("ackName", "SERVER");
        m.putObject("_data").put("notifyName", "Alice").put("type", "chat");
        return m;
    }

    static byte[] hmac(String key, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA512");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA512"));
            return mac.doFinal(body);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    // ---- WAHA's API --------------------------------------------------------------------------------

    /** Send calls ({@code sendText}, {@code sendImage}, {@code sendFile}) WAHA accepted for {@code chatId}, in order. */
    List<Call> sentTo(String chatId) {
        return calls.stream().filter(c -> c.method().startsWith("send") && !c.method().equals("sendSeen") && chatId.equals(c.chatId())).toList();
    }

    List<Call> calls(String method) {
        return calls.stream().filter(c -> c.method().equals(method)).toList();
    }

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            String method = x.getRequestMethod();
            if (!API_KEY.equals(x.getRequestHeaders().getFirst("X-Api-Key"))) {
                LocalJsonServer.reply(x, 401, LocalJsonServer.JSON.createObjectNode().put("message", "Unauthorized").put("statusCode", 401));
                return;
            }
            if (method.equals("GET") && path.startsWith("/api/files/")) {
                String name = path.substring("/api/files/".length());
                downloads.add(name);
                Object[] f = files.get(name);
                if (f == null) {
                    x.sendResponseHeaders(404, -1);
                    return;
                }
                byte[] bytes = (byte[]) f[0];
                x.getResponseHeaders().add("Content-Type", (String) f[1]);
                x.sendResponseHeaders(200, bytes.length);
                x.getResponseBody().write(bytes);
            } else if (method.equals("GET") && path.startsWith("/api/sessions/")) {
                sessionPolls.incrementAndGet();
                String name = path.substring("/api/sessions/".length());
                if (!name.equals(SESSION)) {
                    LocalJsonServer.reply(x, 404, LocalJsonServer.JSON.createObjectNode().put("message", "Session not found").put("statusCode", 404));
                    return;
                }
                ObjectNode s = LocalJsonServer.JSON.createObjectNode().put("name", SESSION).put("status", status);
                if (status.equals("WORKING")) {
                    s.putObject("me").put("id", ME_ID).put("pushName", "Herald");
                } else {
                    s.putNull("me");
                }
                s.put("engine", LocalJsonServer.JSON.createObjectNode().put("engine", "WEBJS").toString());
                LocalJsonServer.reply(x, 200, s);
            } else if (method.equals("POST") && path.startsWith("/api/")) {
                api(x, path.substring("/api/".length()));
            } else {
                LocalJsonServer.reply(x, 404, LocalJsonServer.JSON.createObjectNode().put("message", "Cannot " + method + " " + path));
            }
        }
    }

    private void api(HttpExchange x, String method) throws IOException {
        JsonNode body = LocalJsonServer.JSON.readTree(x.getRequestBody().readAllBytes());
        if (!List.of("sendText", "sendImage", "sendFile", "startTyping", "stopTyping", "sendSeen").contains(method)) {
            LocalJsonServer.reply(x, 404, LocalJsonServer.JSON.createObjectNode().put("message", "Cannot POST /api/" + method));
            return;
        }
        if (!SESSION.equals(body.path("session").asText()) || !body.path("chatId").isTextual()) {
            LocalJsonServer.reply(x, 400, LocalJsonServer.JSON.createObjectNode().put("message", "session and chatId are required"));
            return;
        }
        if (!status.equals("WORKING")) {
            LocalJsonServer.reply(x, 422, LocalJsonServer.JSON.createObjectNode().put("statusCode", 422).put("message",
                    "Session status is not as expected. Try again later or restart the session").put("status", status));
            return;
        }
        boolean file = method.equals("sendImage") || method.equals("sendFile");
        if (file && !plus) {
            LocalJsonServer.reply(x, 422, LocalJsonServer.JSON.createObjectNode().put("message",
                    "The feature is available only in Plus version for 'WEBJS' engine. Check this out: https://waha.devlike.pro/")
                    .put("error", "Unprocessable Entity").put("statusCode", 422));
            return;
        }
        if (method.equals("sendText") && !body.path("text").isTextual()
                || file && !(body.path("file").path("data").isTextual() || body.path("file").path("url").isTextual())) {
            LocalJsonServer.reply(x, 400, LocalJsonServer.JSON.createObjectNode().put("message", "text or file is required"));
            return;
        }
        calls.add(new Call(method, body));
        if (!method.startsWith("send") || method.equals("sendSeen")) {
            LocalJsonServer.reply(x, 201, LocalJsonServer.JSON.createObjectNode());
            return;
        }
        if (!answerDelay.isZero()) {
            try {
                Thread.sleep(answerDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        String shortId = "3EB0" + ids.incrementAndGet();
        ObjectNode sent = LocalJsonServer.JSON.createObjectNode();
        sent.putObject("id").put("fromMe", true).put("remote", body.path("chatId").asText()).put("id", shortId)
                .put("_serialized", "true_" + body.path("chatId").asText() + "_" + shortId);
        sent.put("body", body.path("text").asText("")).put("fromMe", true).put("to", body.path("chatId").asText()).put("from", ME_ID);
        LocalJsonServer.reply(x, 201, sent);
    }

    @Override
    public synchronized void close() {
        if (web != null) {
            web.close();
        }
        server.close();
        client.close();
    }
}
