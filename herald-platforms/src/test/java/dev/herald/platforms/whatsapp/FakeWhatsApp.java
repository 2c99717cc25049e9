package dev.herald.platforms.whatsapp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformState;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local stand-in for Meta's Graph API, written for these tests from the Cloud API reference, and the Meta side of the
 * webhook. The API: {@code GET /v21.0/<phone-number-id>}, {@code POST /v21.0/<phone-number-id>/messages} (text,
 * interactive, media by id, template, and {@code status: read} with the typing indicator; answered with
 * {@code messages[0].id}), {@code POST /v21.0/<phone-number-id>/media} (multipart upload, answered with an id),
 * {@code GET /v21.0/<media-id>} (the media's URL, type, sha256 and size) and the media URL itself, every call checked for
 * the bearer token, errors in Graph's shape ({@code {"error":{"message","type","code","error_data","error_subcode",
 * "fbtrace_id"}}}). A person whose window is {@link #closed} gets error 131047 for anything but a template, as Meta
 * answers after 24 hours of silence. The webhook side signs a notification with the app secret and POSTs it to Herald's
 * route, as Meta does.
 */
final class FakeWhatsApp implements AutoCloseable {
    static final String PHONE_NUMBER_ID = "106540352242922";
    static final String TOKEN = "EAAJB-fake-access-token-3141592653";
    static final String APP_SECRET = "fake-app-secret-2718281828";
    static final String VERIFY_TOKEN = "fake-verify-token-1618";
    static final String VERSION = "v21.0";

    /** One {@code /messages} call Meta accepted (or refused, when {@code error} is set): its body as sent. */
    record Sent(String to, String type, JsonNode body, String wamid, int error) {
        String text() {
            return body.path("text").path("body").asText(null);
        }

        String context() {
            return body.path("context").path("message_id").asText(null);
        }
    }

    /** One upload to {@code /media}. */
    record Upload(String id, String type, String fileName, String contentType, byte[] bytes) {
    }

    final List<Sent> sent = new CopyOnWriteArrayList<>();
    final List<Sent> refused = new CopyOnWriteArrayList<>();
    final List<String> reads = new CopyOnWriteArrayList<>();
    final List<Upload> uploads = new CopyOnWriteArrayList<>();
    final List<String> mediaDownloads = new CopyOnWriteArrayList<>();
    /** People whose 24-hour window is closed: 131047 for anything but a template. */
    final Set<String> closed = ConcurrentHashMap.newKeySet();
    /** Graph error codes the next {@code /messages} calls answer, one per call. */
    final Deque<Integer> errors = new ConcurrentLinkedDeque<>();
    /** Media the fake serves, by id: bytes and type. */
    final Map<String, Object[]> media = new ConcurrentHashMap<>();
    /** When set, {@code GET /<media-id>} names this URL instead of the fake's own. */
    volatile String mediaUrlOverride;
    /** Delay before an accepted message is answered (the message is sent at once). */
    volatile Duration answerDelay = Duration.ZERO;
    final AtomicInteger messageCalls = new AtomicInteger();

    private final LocalJsonServer server;
    private final AtomicInteger ids = new AtomicInteger(1000);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    volatile WhatsAppSettings settings;
    private volatile WebServer web;
    private volatile String webhook;

    FakeWhatsApp() {
        server = new LocalJsonServer(this::serve);
        settings = WhatsAppSettings.of(server.baseUrl() + "/" + VERSION, PHONE_NUMBER_ID, TOKEN, APP_SECRET, VERIFY_TOKEN);
    }

    String apiBase() {
        return server.baseUrl() + "/" + VERSION;
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

    /** Quick rate-limit waits, so that a test of Meta's 130429 takes a moment. */
    static WhatsAppSettings.Timing timing() {
        return new WhatsAppSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofMillis(300), Duration.ofSeconds(20),
                Duration.ofHours(24));
    }

    private synchronized WhatsAppAdapter adapter(Clock clock, PlatformState state) {
        if (web != null) {
            web.close(); // the process before (stopped or crashed) no longer listens
        }
        WebServer w = new WebServer(WebServer.Settings.ephemeral());
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(WhatsAppAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")), state, f,
                new PlatformRoutes(WhatsAppAdapter.PLATFORM, w));
        WhatsAppAdapter adapter = WhatsAppPlugin.create(settings, timing(), context);
        w.start();
        web = w;
        webhook = w.baseUrl() + "/platforms/whatsapp/webhook";
        current = f;
        return adapter;
    }

    private volatile MediaFetchers current;

    /** The media fetcher the running process registered. */
    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("whatsapp").orElseThrow();
    }

    // ---- Meta calling Herald -------------------------------------------------------------------------

    /** POSTs {@code body} to Herald's webhook signed with the app secret, as Meta does; returns the status. */
    int post(String body) {
        return post(body, "sha256=" + hex(hmac(APP_SECRET, body.getBytes(StandardCharsets.UTF_8))));
    }

    /** POSTs {@code body} with {@code signature} as X-Hub-Signature-256 (null: none); returns the status. */
    int post(String body, String signature) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(webhook)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (signature != null) {
            b.header("X-Hub-Signature-256", signature);
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

    /** Meta's subscription handshake: GET with hub.mode, hub.verify_token and hub.challenge; the status and the body. */
    HttpResponse<String> verify(String mode, String token, String challenge) throws Exception {
        String q = "hub.mode=" + enc(mode) + "&hub.verify_token=" + enc(token) + "&hub.challenge=" + enc(challenge);
        return client.send(HttpRequest.newBuilder(URI.create(webhook + "?" + q)).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String enc(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** A notification carrying {@code message} from {@code from} (named {@code name}), in the Cloud API's shape. */
    static String notification(String from, String name, ObjectNode message) {
        ObjectNode root = LocalJsonServer.JSON.createObjectNode().put("object", "whatsapp_business_account");
        ObjectNode entry = root.putArray("entry").addObject().put("id", "102290129340398");
        ObjectNode value = entry.putArray("changes").addObject().put("field", "messages").putObject("value").put("messaging_product", "whatsapp");
        value.putObject("metadata").put("display_phone_number", "15550783881").put("phone_number_id", PHONE_NUMBER_ID);
        value.putArray("contacts").addObject().put("wa_id", from).putObject("profile").put("name", name);
        value.putArray("messages").add(message);
        return root.toString();
    }

    static ObjectNode text(String from, String wamid, String body) {
        ObjectNode m = base(from, wamid, "text");
        m.putObject("text").put("body", body);
        return m;
    }

    static ObjectNode image(String from, String wamid, String mediaId, String caption) {
        ObjectNode m = base(from, wamid, "image");
        m.putObject("image").put("caption", caption).put("mime_type", "image/jpeg")
                .put("sha256", "HgpBWHJkGrmtJHKlz6ObHLBa5jNNDhQzt6U7FBrprTA=").put("id", mediaId);
        return m;
    }

    static ObjectNode buttonReply(String from, String wamid, String id, String title) {
        ObjectNode m = base(from, wamid, "interactive");
        m.putObject("interactive").put("type", "button_reply").putObject("button_reply").put("id", id).put("title", title);
        return m;
    }

    private static ObjectNode base(String from, String wamid, String type) {
        return LocalJsonServer.JSON.createObjectNode().put("from", from).put("id", wamid)
                .put("timestamp", Long.toString(Instant.now().getEpochSecond())).put("type", type);
    }

    /** A status notification for a message Herald sent. */
    static String status(String wamid, String to, String status, Integer errorCode) {
        ObjectNode root = LocalJsonServer.JSON.createObjectNode().put("object", "whatsapp_business_account");
        ObjectNode value = root.putArray("entry").addObject().put("id", "102290129340398").putArray("changes").addObject()
                .put("field", "messages").putObject("value").put("messaging_product", "whatsapp");
        value.putObject("metadata").put("display_phone_number", "15550783881").put("phone_number_id", PHONE_NUMBER_ID);
        ObjectNode s = value.putArray("statuses").addObject().put("id", wamid).put("status", status)
                .put("timestamp", Long.toString(Instant.now().getEpochSecond())).put("recipient_id", to);
        if (errorCode != null) {
            s.putArray("errors").addObject().put("code", errorCode).put("title", "Message undeliverable")
                    .putObject("error_data").put("details", "Message Undeliverable.");
        }
        return root.toString();
    }

    static byte[] hmac(String key, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(body);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    // ---- the Graph API ----------------------------------------------------------------------------

    /** Messages Meta accepted for {@code to}, in order. */
    List<Sent> sentTo(String to) {
        return sent.stream().filter(s -> s.to().equals(to)).toList();
    }

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            String method = x.getRequestMethod();
            if (path.startsWith("/media/")) {
                serveMedia(x, path.substring(7));
                return;
            }
            if (!("Bearer " + TOKEN).equals(x.getRequestHeaders().getFirst("Authorization"))) {
                error(x, 401, 190, "Error validating access token: Session has expired.", "OAuthException", null);
                return;
            }
            String prefix = "/" + VERSION + "/";
            if (!path.startsWith(prefix)) {
                error(x, 404, 100, "Unknown path components: " + path, "OAuthException", null);
                return;
            }
            String rest = path.substring(prefix.length());
            if (method.equals("GET") && rest.equals(PHONE_NUMBER_ID)) {
                LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("verified_name", "Herald Test")
                        .put("display_phone_number", "+1 555-078-3881").put("id", PHONE_NUMBER_ID));
            } else if (method.equals("POST") && rest.equals(PHONE_NUMBER_ID + "/messages")) {
                messages(x);
            } else if (method.equals("POST") && rest.equals(PHONE_NUMBER_ID + "/media")) {
                upload(x);
            } else if (method.equals("GET") && media.containsKey(rest)) {
                Object[] m = media.get(rest);
                byte[] bytes = (byte[]) m[0];
                String url = mediaUrlOverride != null ? mediaUrlOverride : server.baseUrl() + "/media/" + rest + "?ext=1&hash=abc";
                LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("messaging_product", "whatsapp").put("url", url)
                        .put("mime_type", (String) m[1]).put("sha256", java.util.Base64.getEncoder().encodeToString(sha256(bytes)))
                        .put("file_size", bytes.length).put("id", rest));
            } else {
                error(x, 400, 100, "Unsupported get request. Object with ID '" + rest + "' does not exist", "GraphMethodException", 33);
            }
        }
    }

    private void serveMedia(HttpExchange x, String id) throws IOException {
        mediaDownloads.add(id + " auth=" + x.getRequestHeaders().getFirst("Authorization"));
        Object[] m = media.get(id);
        if (m == null || !("Bearer " + TOKEN).equals(x.getRequestHeaders().getFirst("Authorization"))) {
            x.sendResponseHeaders(m == null ? 404 : 401, -1);
            return;
        }
        byte[] bytes = (byte[]) m[0];
        x.getResponseHeaders().add("Content-Type", (String) m[1]);
        x.sendResponseHeaders(200, bytes.length);
        x.getResponseBody().write(bytes);
    }

    private void messages(HttpExchange x) throws IOException {
        messageCalls.incrementAndGet();
        JsonNode body = LocalJsonServer.JSON.readTree(x.getRequestBody());
        if (!"whatsapp".equals(body.path("messaging_product").asText())) {
            error(x, 400, 100, "(#100) The parameter messaging_product is required.", "OAuthException", null);
            return;
        }
        if (body.path("status").asText("").equals("read")) {
            reads.add(body.path("message_id").asText() + (body.path("typing_indicator").path("type").asText("").equals("text") ? " typing" : ""));
            LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("success", true));
            return;
        }
        String to = body.path("to").asText("");
        String type = body.path("type").asText("text");
        Integer code = errors.poll();
        if (code == null && closed.contains(to) && !type.equals("template")) {
            code = 131047;
        }
        if (code != null) {
            refused.add(new Sent(to, type, body, null, code));
            switch (code) {
                case 131047 -> error(x, 400, 131047, "(#131047) Re-engagement message", "OAuthException", 2494010,
                        "Message failed to send because more than 24 hours have passed since the customer last replied to this number.");
                case 130429 -> error(x, 400, 130429, "(#130429) Rate limit hit", "OAuthException", 2494055,
                        "Message failed to send because there were too many messages sent from this phone number in a short period of time");
                case 131026 -> error(x, 400, 131026, "(#131026) Message Undeliverable.", "OAuthException", null, "Message Undeliverable.");
                case 190 -> error(x, 401, 190, "Error validating access token: Session has expired.", "OAuthException", 463);
                default -> error(x, 500, code, "(#" + code + ") Service temporarily unavailable", "OAuthException", null);
            }
            return;
        }
        if (type.equals("interactive") && body.path("interactive").path("action").path("buttons").size() > 3) {
            error(x, 400, 131009, "(#131009) Parameter value is not valid", "OAuthException", null, "buttons: at most 3");
            return;
        }
        String wamid = "wamid.HBgL" + ids.incrementAndGet() + "FQIAERgSQkM=";
        sent.add(new Sent(to, type, body, wamid, 0));
        if (!answerDelay.isZero()) {
            try {
                Thread.sleep(answerDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ObjectNode answer = LocalJsonServer.JSON.createObjectNode().put("messaging_product", "whatsapp");
        answer.putArray("contacts").addObject().put("input", to).put("wa_id", to);
        answer.putArray("messages").addObject().put("id", wamid);
        LocalJsonServer.reply(x, 200, answer);
    }

    private void upload(HttpExchange x) throws IOException {
        MultipartForm form = MultipartForm.parse(x.getRequestHeaders().getFirst("Content-Type"), x.getRequestBody().readAllBytes());
        if (!"whatsapp".equals(form.fields().get("messaging_product")) || form.files().size() != 1 || form.fields().get("type") == null) {
            error(x, 400, 100, "(#100) The parameter messaging_product, type and file are required.", "OAuthException", null);
            return;
        }
        MultipartForm.FilePart f = form.files().getFirst();
        String id = Integer.toString(ids.incrementAndGet() + 900_000);
        uploads.add(new Upload(id, form.fields().get("type"), f.fileName(), f.contentType(), f.bytes()));
        media.put(id, new Object[] {f.bytes(), form.fields().get("type")});
        LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("id", id));
    }

    private static void error(HttpExchange x, int status, int code, String message, String type, Integer subcode) throws IOException {
        error(x, status, code, message, type, subcode, null);
    }

    private static void error(HttpExchange x, int status, int code, String message, String type, Integer subcode, String details)
            throws IOException {
        ObjectNode e = LocalJsonServer.JSON.createObjectNode().putObject("error").put("message", message).put("type", type).put("code", code);
        if (details != null) {
            e.putObject("error_data").put("messaging_product", "whatsapp").put("details", details);
        }
        if (subcode != null) {
            e.put("error_subcode", subcode);
        }
        e.put("fbtrace_id", "AyzgVwQkD0wKH5r2sxNqQ5B");
        LocalJsonServer.reply(x, status, LocalJsonServer.JSON.createObjectNode().set("error", e));
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
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
