package dev.herald.platforms.teams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
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
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * A local stand-in for the Bot Framework, written for these tests from its REST reference: the OpenID metadata
 * ({@code GET /openid}, naming {@code /keys}), the signing keys as a JWKS with {@code endorsements}, the token endpoint
 * of the client-credentials grant ({@code POST /token}, form-encoded, checked), and the Bot Connector at the serviceUrl
 * {@code <base>/amer/}: {@code POST v3/conversations/{id}/activities[/{activityId}]} (checked for the bot's bearer
 * token, answered with an id) and attachments at {@code v3/attachments/{id}/views/original} (bearer token needed).
 * The Connector side signs a JWT with RS256 (issuer {@code https://api.botframework.com}, audience the app id,
 * {@code serviceurl} claim) and POSTs activities to Herald's route, as the Bot Connector does.
 */
final class FakeTeams implements AutoCloseable {
    static final String APP_ID = "7c0d4a2e-5b1f-4e8a-9d3c-2f6b8a1e0c47";
    static final String APP_PASSWORD = "fake~app~password~0123456789";
    static final String BOT_TOKEN_PREFIX = "bot-access-token-";
    static final String BOT = "28:" + APP_ID;
    static final String ISSUER = "https://api.botframework.com";

    /** One activity Herald posted: the conversation, the activity it answers (null for a new one) and its body. */
    record Posted(String conversation, String replyTo, JsonNode body, String authorization) {
        String text() {
            return body.path("text").asText(null);
        }

        String type() {
            return body.path("type").asText();
        }
    }

    final List<Posted> posted = new CopyOnWriteArrayList<>();
    final List<String> attachmentDownloads = new CopyOnWriteArrayList<>();
    final Map<String, byte[]> attachments = new ConcurrentHashMap<>();
    final AtomicInteger tokenRequests = new AtomicInteger();
    final AtomicInteger keyRequests = new AtomicInteger();
    final AtomicInteger ids = new AtomicInteger(1_000);
    /** Delay before a post is answered (the activity is recorded at once). */
    volatile Duration answerDelay = Duration.ZERO;

    /** The keys are made once per test run (RSA key generation is slow on a busy machine). */
    private static final RSAKey[] KEYS = keys();
    final RSAKey k1 = KEYS[0];
    final RSAKey k2 = KEYS[1];
    /** A key the Bot Framework never published, with k1's key id (a forger's). */
    final RSAKey forged = KEYS[2];
    private volatile List<RSAKey> published;

    private final LocalJsonServer server;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    volatile TeamsSettings settings;
    private volatile WebServer web;
    private volatile String route;
    private volatile MediaFetchers current;

    FakeTeams() {
        published = List.of(k1);
        server = new LocalJsonServer(this::serve);
        settings = TeamsSettings.of(APP_ID, APP_PASSWORD, server.baseUrl() + "/token", server.baseUrl() + "/openid", List.of(server.baseUrl()));
    }

    private static RSAKey[] keys() {
        try {
            return new RSAKey[] {new RSAKeyGenerator(2048).keyID("k1").generate(), new RSAKeyGenerator(2048).keyID("k2").generate(),
                    new RSAKeyGenerator(2048).keyID("k1").generate()};
        } catch (com.nimbusds.jose.JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    String serviceUrl() {
        return server.baseUrl() + "/amer/";
    }

    String baseUrl() {
        return server.baseUrl();
    }

    int port() {
        return URI.create(server.baseUrl()).getPort();
    }

    /** The Bot Framework publishes {@code keys} from now on (a rotation). */
    void publish(RSAKey... keys) {
        published = List.of(keys);
    }

    GatewayFixture herald(String... allowedUsers) {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    static TeamsSettings.Timing timing() {
        return new TeamsSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofMillis(300), Duration.ofSeconds(3),
                Duration.ofHours(1));
    }

    private synchronized TeamsAdapter adapter(Clock clock, PlatformState state) {
        if (web != null) {
            web.close();
        }
        WebServer w = new WebServer(WebServer.Settings.ephemeral());
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(TeamsAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")), state, f,
                new PlatformRoutes(TeamsAdapter.PLATFORM, w));
        TeamsAdapter adapter = TeamsPlugin.create(settings, timing(), context);
        w.start();
        web = w;
        route = w.baseUrl() + "/platforms/teams/messages";
        current = f;
        return adapter;
    }

    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("teams").orElseThrow();
    }

    // ---- the Bot Connector calling Herald ------------------------------------------------------------

    /** The claims of a good token for an activity from {@code serviceUrl}. */
    JWTClaimsSet.Builder claims(String serviceUrl) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(ISSUER).audience(APP_ID).expirationTime(Date.from(now.plusSeconds(3600)))
                .notBeforeTime(Date.from(now.minusSeconds(300))).issueTime(Date.from(now.minusSeconds(300))).claim("serviceurl", serviceUrl);
    }

    static String sign(JWTClaimsSet claims, RSAKey key) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(), claims);
            jwt.sign(new RSASSASigner(key));
            return jwt.serialize();
        } catch (com.nimbusds.jose.JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** POSTs {@code activity} with a good token for its serviceUrl; returns the status. */
    int post(String activity) {
        String serviceUrl = LocalJsonServer.JSON.valueToTree(parse(activity)).path("serviceUrl").asText(serviceUrl());
        return post(activity, "Bearer " + sign(claims(serviceUrl).build(), k1));
    }

    /** POSTs {@code activity} with {@code authorization} (null: none); returns the status. */
    int post(String activity, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(route)).timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(activity));
        if (authorization != null) {
            b.header("Authorization", authorization);
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

    private static JsonNode parse(String s) {
        try {
            return LocalJsonServer.JSON.readTree(s);
        } catch (IOException e) {
            return LocalJsonServer.JSON.createObjectNode();
        }
    }

    /** A message activity in a personal chat from the user with object id {@code aad}. */
    ObjectNode personal(String aad, String activityId, String text) {
        return message("a:1" + aad.replace("-", "") + "personal", "personal", aad, activityId, text);
    }

    /** A message activity in a group chat or a channel ({@code conversationType}), {@code mentioned} the bot or not. */
    ObjectNode inGroup(String conversation, String type, String aad, String activityId, String text, boolean mentioned) {
        ObjectNode a = message(conversation, type, aad, activityId, mentioned ? "<at>Herald</at> " + text : text);
        if (mentioned) {
            ObjectNode e = a.putArray("entities").addObject().put("type", "mention").put("text", "<at>Herald</at>");
            e.putObject("mentioned").put("id", BOT).put("name", "Herald");
        }
        return a;
    }

    ObjectNode message(String conversation, String type, String aad, String activityId, String text) {
        ObjectNode a = LocalJsonServer.JSON.createObjectNode().put("type", "message").put("id", activityId)
                .put("timestamp", Instant.now().toString()).put("serviceUrl", serviceUrl()).put("channelId", "msteams");
        a.putObject("from").put("id", "29:1" + aad.replace("-", "")).put("name", "Alice Example").put("aadObjectId", aad);
        a.putObject("conversation").put("conversationType", type).put("tenantId", "72f988bf-86f1-41af-91ab-2d7cd011db47")
                .put("id", conversation).put("isGroup", !type.equals("personal"));
        a.putObject("recipient").put("id", BOT).put("name", "Herald");
        a.put("textFormat", "plain").put("locale", "en-US");
        if (text != null) {
            a.put("text", text);
        }
        a.putObject("channelData").putObject("tenant").put("id", "72f988bf-86f1-41af-91ab-2d7cd011db47");
        return a;
    }

    // ---- the Bot Framework's side ---------------------------------------------------------------------

    List<Posted> messages() {
        return posted.stream().filter(p -> p.type().equals("message")).toList();
    }

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getRawPath();
            String method = x.getRequestMethod();
            if (method.equals("GET") && path.equals("/openid")) {
                LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("issuer", ISSUER).put("jwks_uri", server.baseUrl() + "/keys")
                        .set("id_token_signing_alg_values_supported", LocalJsonServer.JSON.createArrayNode().add("RS256")));
            } else if (method.equals("GET") && path.equals("/keys")) {
                keyRequests.incrementAndGet();
                ObjectNode set = LocalJsonServer.JSON.createObjectNode();
                ArrayNode keys = set.putArray("keys");
                for (RSAKey k : published) {
                    ObjectNode n = (ObjectNode) LocalJsonServer.JSON.readTree(k.toPublicJWK().toJSONString());
                    n.put("use", "sig").putArray("endorsements").add("msteams").add("webchat");
                    keys.add(n);
                }
                LocalJsonServer.reply(x, 200, set);
            } else if (method.equals("POST") && path.equals("/token")) {
                token(x);
            } else if (path.startsWith("/amer/v3/attachments/")) {
                String id = path.substring("/amer/v3/attachments/".length()).replace("/views/original", "");
                attachmentDownloads.add(id + " auth=" + x.getRequestHeaders().getFirst("Authorization"));
                byte[] bytes = attachments.get(id);
                String auth = x.getRequestHeaders().getFirst("Authorization");
                if (bytes == null || auth == null || !auth.startsWith("Bearer " + BOT_TOKEN_PREFIX)) {
                    x.sendResponseHeaders(bytes == null ? 404 : 401, -1);
                    return;
                }
                x.getResponseHeaders().add("Content-Type", "image/png");
                x.sendResponseHeaders(200, bytes.length);
                x.getResponseBody().write(bytes);
            } else if (method.equals("POST") && path.startsWith("/amer/v3/conversations/")) {
                activities(x, path.substring("/amer/v3/conversations/".length()));
            } else {
                LocalJsonServer.reply(x, 404, LocalJsonServer.JSON.createObjectNode().set("error",
                        LocalJsonServer.JSON.createObjectNode().put("code", "NotFound").put("message", "no route " + path)));
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
        boolean ok = "client_credentials".equals(form.get("grant_type")) && APP_ID.equals(form.get("client_id"))
                && APP_PASSWORD.equals(form.get("client_secret")) && "https://api.botframework.com/.default".equals(form.get("scope"));
        if (!ok) {
            LocalJsonServer.reply(x, 401, LocalJsonServer.JSON.createObjectNode().put("error", "invalid_client")
                    .put("error_description", "AADSTS7000215: Invalid client secret provided."));
            return;
        }
        LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("token_type", "Bearer").put("expires_in", 3599)
                .put("ext_expires_in", 3599).put("access_token", BOT_TOKEN_PREFIX + tokenRequests.get()));
    }

    private void activities(HttpExchange x, String rest) throws IOException {
        String auth = x.getRequestHeaders().getFirst("Authorization");
        if (auth == null || !auth.startsWith("Bearer " + BOT_TOKEN_PREFIX)) {
            LocalJsonServer.reply(x, 401, LocalJsonServer.JSON.createObjectNode().put("message", "Authorization has been denied for this request."));
            return;
        }
        String[] parts = rest.split("/");
        if (parts.length < 2 || !parts[1].equals("activities")) {
            x.sendResponseHeaders(404, -1);
            return;
        }
        String conversation = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
        String replyTo = parts.length > 2 ? URLDecoder.decode(parts[2], StandardCharsets.UTF_8) : null;
        JsonNode body = LocalJsonServer.JSON.readTree(x.getRequestBody());
        posted.add(new Posted(conversation, replyTo, body, auth));
        if (!answerDelay.isZero()) {
            try {
                Thread.sleep(answerDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LocalJsonServer.reply(x, body.path("type").asText().equals("typing") ? 200 : 201,
                LocalJsonServer.JSON.createObjectNode().put("id", "1" + ids.incrementAndGet()));
    }

    /** A JSON object edited by {@code edit}, as text. */
    static String json(ObjectNode a, UnaryOperator<ObjectNode> edit) {
        return edit.apply(a.deepCopy()).toString();
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
