package dev.herald.platforms.sms;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import dev.herald.web.PlatformRoutes;
import dev.herald.web.WebServer;
import java.io.IOException;
import java.net.ServerSocket;
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
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local stand-in for Twilio, written for these tests from Twilio's Messaging documentation. The REST side:
 * {@code GET /2010-04-01/Accounts/<AC>.json}, {@code POST /2010-04-01/Accounts/<AC>/Messages.json} (form fields
 * {@code To}, {@code From} or {@code MessagingServiceSid}, {@code Body}, {@code MediaUrl}; answered 201 with the
 * Message resource, {@code sid} {@code SM...}; a {@code MediaUrl} is fetched at once, as Twilio does, and what came back
 * is kept), and a message's media ({@code GET .../Messages/<MM>/Media/<ME>}, which redirects (307) to a short-lived
 * URL, as Twilio does with HTTP authentication on media); every API call checked for basic authentication, errors in
 * Twilio's shape ({@code {"code","message","more_info","status"}}). The phone side: {@link #text} posts a form-encoded
 * webhook call to Herald signed as Twilio signs it ({@code X-Twilio-Signature}).
 */
final class FakeTwilio implements AutoCloseable {
    static final String ACCOUNT_SID = "AC" + "3b1f0e6a2c4d5e6f7a8b9c0d1e2f3a4b";
    static final String AUTH_TOKEN = "fake-auth-token-0f1e2d3c4b5a6978";
    static final String NUMBER = "+15005550006";
    static final String KEY_SID = "SK" + "0123456789abcdef0123456789abcdef";
    static final String KEY_SECRET = "fake-api-key-secret-271828";

    /** One message Twilio accepted: who to, its body and media URLs, its SID, and the media it fetched from them. */
    record Sent(String to, String from, String body, List<String> mediaUrls, String sid, List<Fetched> fetched) {
    }

    /** What a media URL answered when Twilio fetched it. */
    record Fetched(int status, String contentType, byte[] bytes) {
    }

    /** One refused call: the error code it got. */
    record Refused(String to, String body, int code) {
    }

    final List<Sent> sent = new CopyOnWriteArrayList<>();
    final List<Refused> refused = new CopyOnWriteArrayList<>();
    /** Error codes the next Messages calls answer, one per call (21610, 20429, 20003, 21211, 500). */
    final Deque<Integer> errors = new ConcurrentLinkedDeque<>();
    /** Media the fake serves, by media SID: bytes and type. */
    final Map<String, Object[]> media = new ConcurrentHashMap<>();
    /** Media downloads: the path asked for and whether credentials came with it. */
    final List<String> mediaRequests = new CopyOnWriteArrayList<>();
    final AtomicInteger messageCalls = new AtomicInteger();
    /** The Messages call (1-based) that answers {@link #failCode} instead of going out; 0 = none. */
    volatile int failAtCall;
    volatile int failCode = 500;
    /** Delay before an accepted message is answered (the message counts as sent at once). */
    volatile Duration answerDelay = Duration.ZERO;
    volatile String retryAfter = "1";

    private final LocalJsonServer server;
    private final AtomicInteger ids = new AtomicInteger(100);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    volatile SmsSettings settings;
    private volatile WebServer web;
    private volatile MediaFetchers fetchers;
    private final int heraldPort;

    FakeTwilio() {
        server = new LocalJsonServer(this::serve);
        settings = SmsSettings.of(server.baseUrl(), ACCOUNT_SID, AUTH_TOKEN, NUMBER);
        heraldPort = freePort();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    String apiBase() {
        return server.baseUrl();
    }

    /** Where Herald's API server listens (the same port for every process of a test). */
    String heraldBase() {
        return "http://127.0.0.1:" + heraldPort;
    }

    String webhookUrl() {
        return heraldBase() + "/platforms/sms/webhook";
    }

    /** A Herald process per start: the adapter on a fresh API server listener on loopback, as {@code herald run} wires it. */
    GatewayFixture herald(String... allowedUsers) {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    static SmsSettings.Timing timing() {
        return new SmsSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofMillis(300), Duration.ofMinutes(5));
    }

    private synchronized SmsAdapter adapter(Clock clock, PlatformState state) {
        if (web != null) {
            web.close(); // the process before (stopped or crashed) no longer listens
        }
        WebServer w = new WebServer(new WebServer.Settings("127.0.0.1", heraldPort));
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(SmsAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")), state, f,
                new PlatformRoutes(SmsAdapter.PLATFORM, w));
        SmsAdapter adapter = SmsPlugin.create(settings, timing(), context);
        w.start();
        web = w;
        fetchers = f;
        return adapter;
    }

    /** The media fetcher the running process registered. */
    MediaFetcher fetcher() {
        return fetchers.of("sms").orElseThrow();
    }

    // ---- the phone side: Twilio calling Herald ------------------------------------------------------------

    /** A message SID for {@code n}. */
    static String sid(int n) {
        return String.format("SM%032x", n);
    }

    /** The form Twilio posts for an SMS from {@code from}, in its order. */
    static Map<String, String> sms(String from, String messageSid, String body) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("ToCountry", "US");
        p.put("ToState", "CA");
        p.put("SmsMessageSid", messageSid);
        p.put("NumMedia", "0");
        p.put("ToCity", "");
        p.put("FromZip", "");
        p.put("SmsSid", messageSid);
        p.put("FromState", "");
        p.put("SmsStatus", "received");
        p.put("FromCity", "");
        p.put("Body", body);
        p.put("FromCountry", "DE");
        p.put("To", NUMBER);
        p.put("ToZip", "");
        p.put("NumSegments", "1");
        p.put("MessageSid", messageSid);
        p.put("AccountSid", ACCOUNT_SID);
        p.put("From", from);
        p.put("ApiVersion", "2010-04-01");
        return p;
    }

    /** An MMS: {@code media} are media SIDs the fake serves, with their types. */
    Map<String, String> mms(String from, int n, String body, String... mediaSids) {
        String mm = String.format("MM%032x", n);
        Map<String, String> p = sms(from, mm, body);
        p.put("NumMedia", Integer.toString(mediaSids.length));
        for (int i = 0; i < mediaSids.length; i++) {
            p.put("MediaContentType" + i, (String) media.get(mediaSids[i])[1]);
            p.put("MediaUrl" + i, apiBase() + "/2010-04-01/Accounts/" + ACCOUNT_SID + "/Messages/" + mm + "/Media/" + mediaSids[i]);
        }
        return p;
    }

    /** POSTs {@code form} to Herald's webhook signed over the URL it is posted to, as Twilio does. */
    HttpResponse<String> text(Map<String, String> form) {
        return post(form, signature(AUTH_TOKEN, webhookUrl(), form));
    }

    /** POSTs {@code form} with {@code signature} as X-Twilio-Signature (null: none). */
    HttpResponse<String> post(Map<String, String> form, String signature) {
        return postRaw(encode(form), signature);
    }

    HttpResponse<String> postRaw(String body, String signature) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(webhookUrl())).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8").header("I-Twilio-Idempotency-Token", "fake")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (signature != null) {
            b.header("X-Twilio-Signature", signature);
        }
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String encode(Map<String, String> form) {
        StringBuilder s = new StringBuilder();
        form.forEach((k, v) -> s.append(s.isEmpty() ? "" : "&").append(URLEncoder.encode(k, StandardCharsets.UTF_8)).append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        return s.toString();
    }

    /** Twilio's signature: base64 HMAC-SHA1 with the auth token of the URL and each parameter's name and value, sorted by name. */
    static String signature(String token, String url, Map<String, String> form) {
        StringBuilder data = new StringBuilder(url);
        form.keySet().stream().sorted().forEach(k -> data.append(k).append(form.get(k)));
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(token.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            return Base64.getEncoder().encodeToString(mac.doFinal(data.toString().getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- the REST API -----------------------------------------------------------------------------------

    List<Sent> sentTo(String to) {
        return sent.stream().filter(s -> s.to().equals(to)).toList();
    }

    /** The user of each authenticated API call (the account SID or the API key's SID). */
    final List<String> authUsers = new CopyOnWriteArrayList<>();

    private boolean authorized(HttpExchange x) {
        String h = x.getRequestHeaders().getFirst("Authorization");
        if (h != null && h.startsWith("Basic ")) {
            try {
                authUsers.add(new String(Base64.getDecoder().decode(h.substring(6)), StandardCharsets.UTF_8).replaceFirst(":.*", ""));
            } catch (IllegalArgumentException e) {
                authUsers.add("?");
            }
        }
        return ("Basic " + b64(ACCOUNT_SID + ":" + AUTH_TOKEN)).equals(h) || ("Basic " + b64(KEY_SID + ":" + KEY_SECRET)).equals(h);
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            String method = x.getRequestMethod();
            if (path.startsWith("/cdn/")) {
                cdn(x, path.substring(5));
                return;
            }
            String account = "/2010-04-01/Accounts/" + ACCOUNT_SID;
            if (!authorized(x)) {
                if (path.contains("/Media/")) {
                    mediaRequests.add(path + " without credentials");
                }
                error(x, 401, 20003, "Authenticate");
                return;
            }
            if (method.equals("GET") && path.equals(account + ".json")) {
                LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("sid", ACCOUNT_SID).put("friendly_name", "Herald test")
                        .put("status", "active").put("type", "Full"));
            } else if (method.equals("POST") && path.equals(account + "/Messages.json")) {
                messages(x, account);
            } else if (method.equals("GET") && path.startsWith(account + "/Messages/") && path.contains("/Media/")) {
                String me = path.substring(path.lastIndexOf('/') + 1);
                mediaRequests.add(path + " with credentials");
                if (!media.containsKey(me)) {
                    error(x, 404, 20404, "The requested resource " + path + " was not found");
                    return;
                }
                x.getResponseHeaders().add("Location", server.baseUrl() + "/cdn/" + me + "?Expires=1700000000&Signature=abc");
                x.sendResponseHeaders(307, -1);
            } else {
                error(x, 404, 20404, "The requested resource " + path + " was not found");
            }
        }
    }

    private void cdn(HttpExchange x, String me) throws IOException {
        Object[] m = media.get(me);
        if (m == null) {
            x.sendResponseHeaders(404, -1);
            return;
        }
        byte[] bytes = (byte[]) m[0];
        x.getResponseHeaders().add("Content-Type", (String) m[1]);
        x.sendResponseHeaders(200, bytes.length);
        x.getResponseBody().write(bytes);
    }

    private void messages(HttpExchange x, String account) throws IOException {
        int call = messageCalls.incrementAndGet();
        String type = x.getRequestHeaders().getFirst("Content-Type");
        Map<String, List<String>> form = decode(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        String to = first(form, "To");
        String from = first(form, "From");
        String body = first(form, "Body");
        List<String> mediaUrls = form.getOrDefault("MediaUrl", List.of());
        if (type == null || !type.startsWith("application/x-www-form-urlencoded")) {
            error(x, 400, 20001, "Invalid content type");
            return;
        }
        if (to == null || from == null && first(form, "MessagingServiceSid") == null) {
            error(x, 400, 21604, to == null ? "A 'To' phone number is required." : "A 'From' phone number is required.");
            return;
        }
        if ((body == null || body.isEmpty()) && mediaUrls.isEmpty()) {
            error(x, 400, 21602, "Message body is required.");
            return;
        }
        if (body != null && body.length() > 1600) {
            error(x, 400, 21617, "The concatenated message body exceeds the 1600 character limit.");
            return;
        }
        Integer code = call == failAtCall ? Integer.valueOf(failCode) : errors.poll();
        if (code != null) {
            refused.add(new Refused(to, body, code));
            switch (code) {
                case 21610 -> error(x, 400, 21610, "Attempt to send to unsubscribed recipient");
                case 20429 -> {
                    x.getResponseHeaders().add("Retry-After", retryAfter);
                    error(x, 429, 20429, "Too Many Requests");
                }
                case 21211 -> error(x, 400, 21211, "Invalid 'To' Phone Number: " + to);
                case 20003 -> error(x, 401, 20003, "Authenticate");
                default -> error(x, 500, 20500, "An internal server error has occurred");
            }
            return;
        }
        List<Fetched> fetched = new ArrayList<>();
        for (String u : mediaUrls) {
            fetched.add(fetch(u));
        }
        String sid = String.format("%s%032x", mediaUrls.isEmpty() ? "SM" : "MM", ids.incrementAndGet() + 0xabc000);
        sent.add(new Sent(to, from, body == null ? "" : body, mediaUrls, sid, fetched));
        if (!answerDelay.isZero()) {
            try {
                Thread.sleep(answerDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ObjectNode m = LocalJsonServer.JSON.createObjectNode().put("account_sid", ACCOUNT_SID).put("api_version", "2010-04-01")
                .put("body", body == null ? "" : body).put("direction", "outbound-api").put("from", from == null ? NUMBER : from).put("to", to)
                .put("num_media", Integer.toString(mediaUrls.size())).put("num_segments", Integer.toString(Math.max(1, (body == null ? 0 : body.length() + 152) / 153)))
                .put("sid", sid).put("status", "queued").put("uri", account + "/Messages/" + sid + ".json");
        m.putNull("error_code");
        m.putNull("error_message");
        LocalJsonServer.reply(x, 201, m);
    }

    private Fetched fetch(String url) {
        try {
            HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            return new Fetched(r.statusCode(), r.headers().firstValue("content-type").orElse(null), r.body());
        } catch (IOException | IllegalArgumentException e) {
            return new Fetched(0, null, new byte[0]);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Fetched(0, null, new byte[0]);
        }
    }

    static Map<String, List<String>> decode(String body) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.computeIfAbsent(k, z -> new ArrayList<>()).add(v);
        }
        return out;
    }

    private static String first(Map<String, List<String>> form, String name) {
        List<String> v = form.get(name);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }

    private static void error(HttpExchange x, int status, int code, String message) throws IOException {
        LocalJsonServer.reply(x, status, LocalJsonServer.JSON.createObjectNode().put("code", code).put("message", message)
                .put("more_info", "https://www.twilio.com/docs/errors/" + code).put("status", status));
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
