package dev.herald.platforms.bluebubbles;

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
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for a BlueBubbles server, written for these tests from BlueBubbles' REST API documentation and its
 * request validators. Every call must carry the server password as the {@code password} query parameter (else 401).
 * Its API: {@code GET /api/v1/ping} ({@code data: "pong"}), {@code POST /api/v1/message/text} ({@code chatGuid}
 * required, {@code method} apple-script or private-api, a {@code tempGuid} required for apple-script, a
 * {@code selectedMessageGuid} implying private-api; a tempGuid still being sent is 400 "Message is already queued to be
 * sent!"), {@code POST /api/v1/message/attachment} (multipart: chatGuid, tempGuid, name, method, attachment),
 * {@code POST}/{@code DELETE /api/v1/chat/<guid>/typing} and {@code POST /api/v1/chat/<guid>/read} (Private API only),
 * and {@code GET /api/v1/attachment/<guid>/download}. Answers are {@code {status, message, data}} or {@code {status,
 * message, error: {type, message}}}. While {@link #down} it drops every connection unanswered. Its webhook side POSTs
 * {@code {type, data}} events to Herald's webhook URL with {@code ?secret=}, and (like the real server) echoes each
 * message it sent back as a {@code new-message} with {@code isFromMe: true}.
 */
final class FakeBlueBubbles implements AutoCloseable {
    static final String PASSWORD = "bb-fake-password-5f4dcc3b";
    static final String SECRET = "bb-fake-webhook-secret-0cc175b9c0f1";

    /** One call to a send endpoint ({@code text} or {@code attachment}) or to a chat action ({@code typing}, {@code typing-stop}, {@code read}). */
    record Call(String kind, String chatGuid, Map<String, String> fields, MultipartForm.FilePart file) {
        String text() {
            return fields.get("message");
        }
    }

    final List<Call> calls = new CopyOnWriteArrayList<>();
    final List<String> downloads = new CopyOnWriteArrayList<>();
    /** Attachments the fake serves, by guid: bytes and type. */
    final Map<String, Object[]> files = new ConcurrentHashMap<>();
    final AtomicInteger pings = new AtomicInteger();
    final AtomicInteger echoes = new AtomicInteger();
    /** True: every connection is dropped unanswered, as when the Mac sleeps. */
    volatile boolean down;
    /** Whether the Private API helper is connected on the server. */
    volatile boolean privateApi = true;
    /** Delay before a send is answered (the tempGuid is queued meanwhile). */
    volatile Duration answerDelay = Duration.ZERO;
    volatile boolean echo = true;

    private final LocalJsonServer server;
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    volatile BlueBubblesSettings settings;
    volatile Duration pingInterval = Duration.ofMillis(100);
    private volatile WebServer web;
    private volatile String webhook;
    private volatile MediaFetchers current;

    FakeBlueBubbles() {
        server = new LocalJsonServer(this::serve);
        settings = BlueBubblesSettings.of(server.baseUrl(), PASSWORD, SECRET);
    }

    String url() {
        return server.baseUrl();
    }

    /** A Herald process per start: the adapter on a fresh API server listener on loopback, as {@code herald run} wires it. */
    GatewayFixture herald(String... allowedUsers) {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    BlueBubblesSettings.Timing timing() {
        return new BlueBubblesSettings.Timing(Duration.ofSeconds(2), Duration.ofSeconds(5), pingInterval, Duration.ofSeconds(20));
    }

    private synchronized BlueBubblesAdapter adapter(Clock clock, dev.herald.core.platform.PlatformState state) {
        if (web != null) {
            web.close();
        }
        WebServer w = new WebServer(WebServer.Settings.ephemeral());
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(BlueBubblesAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")), state, f,
                new PlatformRoutes(BlueBubblesAdapter.PLATFORM, w));
        BlueBubblesAdapter adapter = BlueBubblesPlugin.create(settings, timing(), context);
        w.start();
        web = w;
        webhook = w.baseUrl() + "/platforms/bluebubbles/webhook";
        current = f;
        return adapter;
    }

    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("bluebubbles").orElseThrow();
    }

    // ---- BlueBubbles calling Herald ----------------------------------------------------------------------

    /** POSTs {@code body} to Herald's webhook with the right secret; returns the status. */
    int post(String body) {
        return post(body, SECRET);
    }

    /** POSTs {@code body} with {@code secret} in the URL (null: none); returns the status. */
    int post(String body, String secret) {
        String url = webhook + (secret == null ? "" : "?secret=" + URLEncoder.encode(secret, StandardCharsets.UTF_8));
        HttpRequest r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            return client.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String event(String type, ObjectNode data) {
        ObjectNode root = LocalJsonServer.JSON.createObjectNode().put("type", type);
        root.set("data", data);
        return root.toString();
    }

    /** A {@code new-message} event. */
    static String newMessage(ObjectNode data) {
        return event("new-message", data);
    }

    static String dmChat(String address) {
        return "iMessage;-;" + address;
    }

    /** A person's text in their 1:1 chat with the Mac's account. */
    static ObjectNode dm(String address, String guid, String text) {
        return message(guid, address, text, dmChat(address), BlueBubblesEvents.DIRECT_STYLE, null);
    }

    /** A text in group chat {@code chatGuid} from {@code address}. */
    static ObjectNode group(String chatGuid, String address, String guid, String text) {
        return message(guid, address, text, chatGuid, BlueBubblesEvents.GROUP_STYLE, "Weekend plans");
    }

    private static ObjectNode message(String guid, String address, String text, String chatGuid, int style, String displayName) {
        ObjectNode m = LocalJsonServer.JSON.createObjectNode().put("originalROWID", 4711).put("guid", guid).put("text", text).putNull("subject")
                .put("isFromMe", false).put("dateCreated", Instant.now().toEpochMilli()).putNull("dateRead").put("itemType", 0)
                .putNull("associatedMessageGuid").putNull("associatedMessageType").putNull("threadOriginatorGuid").put("hasAttachments", false);
        m.putObject("handle").put("originalROWID", 12).put("address", address).put("service", "iMessage").put("country", "us");
        ObjectNode chat = m.putArray("chats").addObject().put("originalROWID", 3).put("guid", chatGuid).put("style", style)
                .put("chatIdentifier", chatGuid.substring(chatGuid.lastIndexOf(';') + 1)).put("isArchived", false)
                .put("displayName", displayName == null ? "" : displayName);
        chat.putArray("participants").addObject().put("address", address);
        m.putArray("attachments");
        return m;
    }

    /** {@code m} with an attachment the server stores under {@code guid} (which the fake then serves). */
    ObjectNode withAttachment(ObjectNode m, String guid, String name, String mimeType, byte[] bytes) {
        files.put(guid, new Object[] {bytes, mimeType});
        m.put("hasAttachments", true);
        ((ArrayNode) m.path("attachments")).addObject().put("originalROWID", 99).put("guid", guid).put("uti", "public.data")
                .put("mimeType", mimeType).put("transferName", name).put("totalBytes", bytes.length).put("transferState", 5);
        return m;
    }

    // ---- the REST API ------------------------------------------------------------------------------------

    /** Messages and attachments the server sent to {@code chatGuid}, in order. */
    List<Call> sentTo(String chatGuid) {
        return calls.stream().filter(c -> (c.kind().equals("text") || c.kind().equals("attachment")) && chatGuid.equals(c.chatGuid())).toList();
    }

    List<Call> calls(String kind) {
        return calls.stream().filter(c -> c.kind().equals(kind)).toList();
    }

    private static Map<String, String> query(URI uri) {
        Map<String, String> q = new LinkedHashMap<>();
        String raw = uri.getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    q.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return q;
    }

    private static void error(HttpExchange x, int status, String type, String message) throws IOException {
        ObjectNode e = LocalJsonServer.JSON.createObjectNode().put("status", status).put("message", status == 401 ? "Unauthorized" : "Bad Request");
        e.putObject("error").put("type", type).put("message", message);
        LocalJsonServer.reply(x, status, e);
    }

    private static void ok(HttpExchange x, String message, JsonNode data) throws IOException {
        ObjectNode o = LocalJsonServer.JSON.createObjectNode().put("status", 200).put("message", message);
        o.set("data", data);
        LocalJsonServer.reply(x, 200, o);
    }

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            if (down) {
                return; // closed unanswered: the client sees the connection drop
            }
            String path = x.getRequestURI().getRawPath();
            String method = x.getRequestMethod();
            if (!PASSWORD.equals(query(x.getRequestURI()).get("password"))) {
                error(x, 401, "Authentication Error", "You are not authorized to access this resource");
                return;
            }
            if (method.equals("GET") && path.equals("/api/v1/ping")) {
                pings.incrementAndGet();
                ok(x, "Ping received!", LocalJsonServer.JSON.getNodeFactory().textNode("pong"));
            } else if (method.equals("GET") && path.matches("/api/v1/attachment/[^/]+/download")) {
                String guid = URLDecoder.decode(path.split("/")[4], StandardCharsets.UTF_8);
                downloads.add(guid);
                Object[] f = files.get(guid);
                if (f == null) {
                    error(x, 404, "Not Found", "Attachment does not exist");
                    return;
                }
                byte[] bytes = (byte[]) f[0];
                x.getResponseHeaders().add("Content-Type", (String) f[1]);
                x.sendResponseHeaders(200, bytes.length);
                x.getResponseBody().write(bytes);
            } else if (method.equals("POST") && path.equals("/api/v1/message/text")) {
                text(x);
            } else if (method.equals("POST") && path.equals("/api/v1/message/attachment")) {
                attachment(x);
            } else if (path.matches("/api/v1/chat/[^/]+/(typing|read)")) {
                String chat = URLDecoder.decode(path.split("/")[4], StandardCharsets.UTF_8);
                if (!privateApi) {
                    error(x, 500, "iMessage Error", "iMessage Private API Helper is not connected!");
                    return;
                }
                String kind = path.endsWith("/read") ? "read" : method.equals("DELETE") ? "typing-stop" : "typing";
                calls.add(new Call(kind, chat, Map.of(), null));
                ok(x, "Success", LocalJsonServer.JSON.nullNode());
            } else {
                error(x, 404, "Not Found", "Route not found: " + method + " " + path);
            }
        }
    }

    private void text(HttpExchange x) throws IOException {
        JsonNode body = LocalJsonServer.JSON.readTree(x.getRequestBody().readAllBytes());
        Map<String, String> fields = new LinkedHashMap<>();
        body.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue().asText()));
        String method = fields.getOrDefault("method", "apple-script");
        if (fields.containsKey("selectedMessageGuid")) {
            method = "private-api";
        }
        if (!body.path("chatGuid").isTextual() || !Set.of("apple-script", "private-api").contains(method)) {
            error(x, 400, "Validation Error", "chatGuid is required and method must be apple-script or private-api");
            return;
        }
        if (method.equals("apple-script") && (fields.get("tempGuid") == null || fields.getOrDefault("message", "").isEmpty())) {
            error(x, 400, "Validation Error", "A 'tempGuid' is required when sending via AppleScript");
            return;
        }
        send(x, "text", fields.get("chatGuid"), method, fields, null);
    }

    private void attachment(HttpExchange x) throws IOException {
        MultipartForm form = MultipartForm.parse(x.getRequestHeaders().getFirst("Content-Type"), x.getRequestBody().readAllBytes());
        var file = form.files().stream().filter(f -> f.field().equals("attachment")).findFirst().orElse(null);
        String method = form.fields().getOrDefault("method", "apple-script");
        if (form.fields().get("chatGuid") == null || form.fields().get("name") == null || file == null || file.bytes().length == 0) {
            error(x, 400, "Validation Error", "Attachment not provided or was empty!");
            return;
        }
        if (method.equals("apple-script") && form.fields().get("tempGuid") == null) {
            error(x, 400, "Validation Error", "A 'tempGuid' is required when sending via AppleScript");
            return;
        }
        send(x, "attachment", form.fields().get("chatGuid"), method, form.fields(), file);
    }

    private void send(HttpExchange x, String kind, String chat, String method, Map<String, String> fields, MultipartForm.FilePart file)
            throws IOException {
        if (method.equals("private-api") && !privateApi) {
            error(x, 500, "iMessage Error", "iMessage Private API Helper is not connected!");
            return;
        }
        String temp = fields.get("tempGuid");
        if (temp != null && !queued.add(temp)) {
            error(x, 400, "Validation Error", "Message is already queued to be sent! (Temp GUID: " + temp + ")");
            return;
        }
        try {
            calls.add(new Call(kind, chat, Map.copyOf(fields), file));
            if (!answerDelay.isZero()) {
                Thread.sleep(answerDelay);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (temp != null) {
                queued.remove(temp);
            }
        }
        String guid = UUID.randomUUID().toString().toUpperCase();
        ObjectNode sent = LocalJsonServer.JSON.createObjectNode().put("guid", guid).put("tempGuid", temp).put("text",
                fields.getOrDefault("message", "\uFFFC")).put("isFromMe", true).put("dateCreated", Instant.now().toEpochMilli());
        ok(x, kind.equals("text") ? "Message sent!" : "Attachment sent!", sent);
        if (echo && webhook != null) {
            ObjectNode own = message(guid, "", sent.path("text").asText(), chat, chat.contains(";+;") ? 43 : 45, null).put("isFromMe", true);
            own.remove("handle");
            Thread.ofVirtual().start(() -> {
                try {
                    if (post(newMessage(own)) == 200) {
                        echoes.incrementAndGet();
                    }
                } catch (RuntimeException gone) {
                    // the process that sent it has stopped: nobody to echo to
                }
            });
        }
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
