package dev.herald.platforms.googlechat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.PlatformContext;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import dev.herald.web.PlatformRoutes;
import dev.herald.web.WebServer;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for Google Chat, written for these tests from the Chat API reference: the JWKS of
 * {@code chat@system.gserviceaccount.com} ({@code GET /jwks}), the OAuth token endpoint of the JWT-bearer grant
 * ({@code POST /token}: the assertion's RS256 signature checked with the service account's public key, its issuer,
 * audience and scope), {@code spaces.messages.create} ({@code POST /v1/spaces/{space}/messages}, with
 * {@code messageReplyOption} and {@code requestId}: a request id seen before returns the message it made) and the
 * media download ({@code GET /v1/media/{resourceName}?alt=media}); every API call checked for the app's bearer token,
 * errors in Google's {@code {"error":{"code","message","status"}}}. The Chat side signs a JWT (RS256, issuer
 * {@code chat@system.gserviceaccount.com}, audience the project number) and POSTs events to Herald's route.
 */
final class FakeGoogleChat implements AutoCloseable {
    static final String PROJECT_NUMBER = "123456789012";
    static final String ISSUER = "chat@system.gserviceaccount.com";
    static final String CLIENT_EMAIL = "herald-bot@herald-test.iam.gserviceaccount.com";
    static final String TOKEN_PREFIX = "ya29.fake-app-token-";
    static final String APP_USER = "users/114022495153014004089";

    /** One message Herald created: space, thread name (or null), the request id, the body as sent, and its name. */
    record Created(String space, String thread, String requestId, String replyOption, JsonNode body, String name) {
        String text() {
            return body.path("text").asText(null);
        }
    }

    private static final RSAKey[] KEYS = keys();
    final RSAKey chatKey = KEYS[0];
    final RSAKey forged = KEYS[1];
    final RSAKey serviceAccount = KEYS[2];

    final List<Created> created = new CopyOnWriteArrayList<>();
    final AtomicInteger createCalls = new AtomicInteger();
    final AtomicInteger tokenRequests = new AtomicInteger();
    final List<String> downloads = new CopyOnWriteArrayList<>();
    final Map<String, byte[]> media = new ConcurrentHashMap<>();
    private final Map<String, Created> byRequestId = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger(1000);
    /** Delay before a create is answered (the message is made at once). */
    volatile Duration answerDelay = Duration.ZERO;

    private final LocalJsonServer server;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final Path keyFile;
    volatile GoogleChatSettings settings;
    private volatile WebServer web;
    private volatile String route;
    private volatile MediaFetchers current;

    FakeGoogleChat() {
        server = new LocalJsonServer(this::serve);
        try {
            keyFile = Files.createTempFile("herald-gchat-sa", ".json");
            String pem = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(serviceAccount.toPrivateKey().getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            ObjectNode json = LocalJsonServer.JSON.createObjectNode().put("type", "service_account").put("project_id", "herald-test")
                    .put("private_key_id", "sa-key-1").put("private_key", pem).put("client_email", CLIENT_EMAIL).put("client_id", "1045")
                    .put("token_uri", server.baseUrl() + "/token");
            Files.writeString(keyFile, json.toString());
        } catch (IOException | com.nimbusds.jose.JOSEException e) {
            throw new IllegalStateException(e);
        }
        settings = GoogleChatSettings.of(PROJECT_NUMBER, server.baseUrl() + "/jwks", keyFile.toString(), server.baseUrl() + "/token", server.baseUrl());
    }

    private static RSAKey[] keys() {
        try {
            return new RSAKey[] {new RSAKeyGenerator(2048).keyID("chat-k1").generate(), new RSAKeyGenerator(2048).keyID("chat-k1").generate(),
                    new RSAKeyGenerator(2048).keyID("sa-key-1").generate()};
        } catch (com.nimbusds.jose.JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    String baseUrl() {
        return server.baseUrl();
    }

    GatewayFixture herald(String... allowedUsers) {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    static GoogleChatSettings.Timing timing() {
        return new GoogleChatSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofMillis(300), Duration.ofHours(1));
    }

    private synchronized GoogleChatAdapter adapter(Clock clock, dev.herald.core.platform.PlatformState state) {
        if (web != null) {
            web.close();
        }
        WebServer w = new WebServer(WebServer.Settings.ephemeral());
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(GoogleChatAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")),
                state, f, new PlatformRoutes(GoogleChatAdapter.PLATFORM, w));
        GoogleChatAdapter adapter = GoogleChatPlugin.create(settings, timing(), context);
        w.start();
        web = w;
        route = w.baseUrl() + "/platforms/google_chat/events";
        current = f;
        return adapter;
    }

    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("google_chat").orElseThrow();
    }

    // ---- Google Chat calling Herald ------------------------------------------------------------------

    JWTClaimsSet.Builder claims() {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(ISSUER).audience(PROJECT_NUMBER).issueTime(Date.from(now.minusSeconds(5)))
                .expirationTime(Date.from(now.plusSeconds(3600)));
    }

    static String sign(JWTClaimsSet claims, RSAKey key) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
            jwt.sign(new RSASSASigner(key));
            return jwt.serialize();
        } catch (com.nimbusds.jose.JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** POSTs {@code event} with a good token; the status. */
    int post(String event) {
        return post(event, "Bearer " + sign(claims().build(), chatKey)).statusCode();
    }

    HttpResponse<String> post(String event, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(route)).timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .header("User-Agent", "Google-Dynamite").POST(HttpRequest.BodyPublishers.ofString(event));
        if (authorization != null) {
            b.header("Authorization", authorization);
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

    /** A MESSAGE event from user {@code user} (the number) in a direct message. */
    static ObjectNode dm(String space, String user, String messageId, String text) {
        return message(space, "DIRECT_MESSAGE", null, user, messageId, text, false);
    }

    /**
     * A MESSAGE event in a space, in thread {@code thread}; {@code mentioned} puts the app's {@code @Herald} before the
     * text with its USER_MENTION annotation and the argumentText.
     */
    static ObjectNode message(String space, String spaceType, String thread, String user, String messageId, String text, boolean mentioned) {
        ObjectNode e = LocalJsonServer.JSON.createObjectNode().put("type", "MESSAGE").put("eventTime", Instant.now().toString());
        e.putObject("space").put("name", "spaces/" + space).put("type", spaceType.equals("DIRECT_MESSAGE") ? "DM" : "ROOM").put("spaceType", spaceType)
                .put("displayName", spaceType.equals("DIRECT_MESSAGE") ? "" : "Ops");
        ObjectNode sender = user(user);
        e.set("user", sender.deepCopy());
        ObjectNode m = e.putObject("message").put("name", "spaces/" + space + "/messages/" + messageId).put("createTime", Instant.now().toString());
        m.set("sender", sender);
        m.putObject("thread").put("name", "spaces/" + space + "/threads/" + (thread != null ? thread : messageId.replace(".", "")));
        m.putObject("space").put("name", "spaces/" + space);
        if (mentioned) {
            m.put("text", "@Herald " + text).put("argumentText", " " + text);
            ObjectNode a = m.putArray("annotations").addObject().put("type", "USER_MENTION").put("startIndex", 0).put("length", 7);
            a.putObject("userMention").put("type", "MENTION").putObject("user").put("name", APP_USER).put("displayName", "Herald").put("type", "BOT");
        } else if (text != null) {
            m.put("text", text).put("argumentText", text);
        }
        return e;
    }

    static ObjectNode user(String user) {
        return LocalJsonServer.JSON.createObjectNode().put("name", "users/" + user).put("displayName", "Alice Example")
                .put("email", "alice@example.com").put("type", "HUMAN").put("domainId", "c0a1b2");
    }

    /** A CARD_CLICKED event: {@code user} pressed the button invoking {@code function} with {@code command}. */
    static ObjectNode cardClicked(String space, String spaceType, String thread, String user, String cardMessageId, String function, String command) {
        ObjectNode e = message(space, spaceType, thread, user, cardMessageId, null, false).put("type", "CARD_CLICKED");
        ((ObjectNode) e.path("message")).set("sender", LocalJsonServer.JSON.createObjectNode().put("name", APP_USER).put("type", "BOT"));
        ObjectNode action = e.putObject("action").put("actionMethodName", function);
        action.putArray("parameters").addObject().put("key", "command").put("value", command);
        ObjectNode common = e.putObject("common").put("hostApp", "CHAT").put("invokedFunction", function);
        common.putObject("parameters").put("command", command);
        return e;
    }

    // ---- the Chat API --------------------------------------------------------------------------------

    List<Created> createdIn(String space) {
        return created.stream().filter(c -> c.space().equals(space)).toList();
    }

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getRawPath();
            String method = x.getRequestMethod();
            if (method.equals("GET") && path.equals("/jwks")) {
                ObjectNode set = LocalJsonServer.JSON.createObjectNode();
                set.putArray("keys").add(LocalJsonServer.JSON.readTree(chatKey.toPublicJWK().toJSONString()));
                LocalJsonServer.reply(x, 200, set);
                return;
            }
            if (method.equals("POST") && path.equals("/token")) {
                token(x);
                return;
            }
            String auth = x.getRequestHeaders().getFirst("Authorization");
            if (auth == null || !auth.startsWith("Bearer " + TOKEN_PREFIX)) {
                error(x, 401, "Request had invalid authentication credentials.", "UNAUTHENTICATED");
                return;
            }
            if (method.equals("POST") && path.startsWith("/v1/spaces/") && path.endsWith("/messages")) {
                create(x, URLDecoder.decode(path.substring("/v1/spaces/".length(), path.length() - "/messages".length()), StandardCharsets.UTF_8));
            } else if (method.equals("GET") && path.startsWith("/v1/media/") && "alt=media".equals(x.getRequestURI().getRawQuery())) {
                String resource = URLDecoder.decode(path.substring("/v1/media/".length()), StandardCharsets.UTF_8);
                downloads.add(resource);
                byte[] bytes = media.get(resource);
                if (bytes == null) {
                    error(x, 404, "Media not found.", "NOT_FOUND");
                    return;
                }
                x.getResponseHeaders().add("Content-Type", "image/png");
                x.sendResponseHeaders(200, bytes.length);
                x.getResponseBody().write(bytes);
            } else {
                error(x, 404, "Method not found.", "NOT_FOUND");
            }
        }
    }

    private void token(HttpExchange x) throws IOException {
        tokenRequests.incrementAndGet();
        Map<String, String> form = new HashMap<>();
        for (String pair : new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8).split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                form.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        boolean ok = false;
        try {
            SignedJWT jwt = SignedJWT.parse(form.getOrDefault("assertion", ""));
            JWTClaimsSet c = jwt.getJWTClaimsSet();
            ok = "urn:ietf:params:oauth:grant-type:jwt-bearer".equals(form.get("grant_type")) && jwt.verify(new RSASSAVerifier(serviceAccount.toRSAPublicKey()))
                    && CLIENT_EMAIL.equals(c.getIssuer()) && c.getAudience().contains(server.baseUrl() + "/token")
                    && "https://www.googleapis.com/auth/chat.bot".equals(c.getStringClaim("scope")) && c.getExpirationTime().toInstant().isAfter(Instant.now());
        } catch (Exception e) {
            ok = false;
        }
        if (!ok) {
            LocalJsonServer.reply(x, 400, LocalJsonServer.JSON.createObjectNode().put("error", "invalid_grant").put("error_description", "Invalid JWT Signature."));
            return;
        }
        LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("access_token", TOKEN_PREFIX + tokenRequests.get())
                .put("expires_in", 3599).put("token_type", "Bearer"));
    }

    private void create(HttpExchange x, String space) throws IOException {
        createCalls.incrementAndGet();
        Map<String, String> query = new HashMap<>();
        String raw = x.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                query.put(pair.substring(0, Math.max(eq, 0)), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        JsonNode body = LocalJsonServer.JSON.readTree(x.getRequestBody());
        String requestId = query.get("requestId");
        Created c = requestId == null ? null : byRequestId.get(requestId);
        if (c == null) {
            if (body.path("text").asText("").isEmpty() && body.path("cardsV2").isMissingNode()) {
                error(x, 400, "Message cannot be empty.", "INVALID_ARGUMENT");
                return;
            }
            String thread = body.path("thread").path("name").asText(null);
            c = new Created(space, thread, requestId, query.get("messageReplyOption"), body, "spaces/" + space + "/messages/" + ids.incrementAndGet()
                    + ".herald");
            created.add(c);
            if (requestId != null) {
                byRequestId.put(requestId, c);
            }
        }
        if (!answerDelay.isZero()) {
            try {
                Thread.sleep(answerDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ObjectNode answer = LocalJsonServer.JSON.createObjectNode().put("name", c.name()).put("text", c.body().path("text").asText(""));
        answer.putObject("thread").put("name", c.thread() != null ? c.thread() : "spaces/" + space + "/threads/new" + ids.get());
        LocalJsonServer.reply(x, 200, answer);
    }

    private static void error(HttpExchange x, int code, String message, String status) throws IOException {
        ObjectNode e = LocalJsonServer.JSON.createObjectNode();
        e.putObject("error").put("code", code).put("message", message).put("status", status);
        LocalJsonServer.reply(x, code, e);
    }

    static ArrayNode array() {
        return LocalJsonServer.JSON.createArrayNode();
    }

    @Override
    public synchronized void close() {
        if (web != null) {
            web.close();
        }
        server.close();
        client.close();
        try {
            Files.deleteIfExists(keyFile);
        } catch (IOException e) {
            // a temporary file
        }
    }
}
