package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.body;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.account.ApiKey;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.session.Storage;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.web.WebServer;
import dev.herald.web.WebUi;
import dev.herald.web.access.WebAccess;
import dev.herald.web.metrics.HeraldMetrics;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API keys of web accounts over real HTTP, a real gateway and a real SQLite store: made in the pages and shown once,
 * stored hashed, deciding the request's user ({@code X-Herald-User} only for admins), revoked by their owner alone,
 * and counted per key in the admin page and {@code /metrics}.
 */
class AccountApiKeysTest {
    private static final String KEY = "sk-account-keys-test-3141";

    @TempDir
    Path dir;
    private GatewayHarness kit;
    private Storage storage;
    private WebServer web;
    private final ScriptedAgent agent = new ScriptedAgent();

    @BeforeEach
    void setUp() {
        Clock clock = Clock.systemUTC();
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        storage = kit.storage();
        ApiServerPlatform api = new ApiServerPlatform(ApiServerPlatform.Settings.defaults().withPort(0).withApiKey(KEY), agent, web, clock);
        WebUi ui = WebUi.create(web, KEY, storage, SessionKey.KeyPolicy.defaults(), new HeraldMetrics(), clock, false);
        api.useApiKeys(ui.apiKeys());
        Gateway gateway = kit.gateway(agent, new Allowlists(Map.of(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll()), false), List.of(api),
                List.of(), GatewaySettings.defaults(), GatewayMetrics.NONE);
        ui.attach(gateway);
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    @AfterEach
    void tearDown() {
        kit.close();
    }

    /** A browser: its own cookies, the page's anti-CSRF header on POSTs. */
    private final class Page {
        final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

        JsonNode post(String path, String json, int expected) {
            HttpResponse<String> r = send(http, HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).header("Content-Type", "application/json")
                    .header(WebAccess.CSRF_HEADER, "1").POST(HttpRequest.BodyPublishers.ofString(json)));
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(expected);
            return json(r.body());
        }

        JsonNode get(String path) {
            HttpResponse<String> r = send(http, HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).GET());
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
            return path.equals("/metrics") ? null : json(r.body());
        }
    }

    private static HttpResponse<String> send(HttpClient http, HttpRequest.Builder b) {
        try {
            return http.send(b.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private HttpResponse<String> complete(String bearer, String text, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(web.baseUrl() + "/v1/chat/completions")).header("Authorization", "Bearer " + bearer)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body(text, false)));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(HttpClient.newHttpClient(), b);
    }

    private List<String> apiChats() {
        return storage.sessions().search(SessionQuery.all(100)).stream().map(SessionEntry::origin).map(o -> o.chatId()).sorted().toList();
    }

    @Test
    void eachAccountsKey_decidesItsUser_isShownOnce_storedHashed_revokedByItsOwner_andCounted() {
        Page ann = new Page();
        ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}", 200);
        ann.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}", 200);
        ann.post("/admin/api/users/create", "{\"name\":\"eve\",\"password\":\"eve's password\"}", 200);
        Page bob = new Page();
        bob.post("/auth/login", "{\"name\":\"bob\",\"password\":\"bob's password\"}", 200);
        Page eve = new Page();
        eve.post("/auth/login", "{\"name\":\"eve\",\"password\":\"eve's password\"}", 200);

        JsonNode made = bob.post("/chat/api/keys/create", "{\"label\":\"laptop\"}", 200);
        String bobsKey = made.path("key").asText();
        String bobsKeyId = made.path("id").asText();
        assertThat(bobsKey).startsWith("hk_" + bobsKeyId + "_");
        assertThat(bob.get("/chat/api/keys").toString()).contains(bobsKeyId, "laptop").doesNotContain(bobsKey);
        ApiKey stored = storage.accounts().keys("bob").getFirst();
        assertThat(stored.keyHash()).hasSize(64).doesNotContain(bobsKey.substring(14));
        String annsKey = ann.post("/chat/api/keys/create", "{\"label\":\"scripts\"}", 200).path("key").asText();

        assertThat(complete(bobsKey, "bob's note", "X-Herald-Session-Id", "notes").statusCode()).isEqualTo(200);
        HttpResponse<String> impersonating = complete(bobsKey, "as eve", "X-Herald-User", "u:eve", "X-Herald-Session-Id", "notes");
        assertThat(impersonating.statusCode()).isEqualTo(403);
        assertThat(impersonating.body()).contains("X-Herald-User is honoured only for admin keys");
        assertThat(complete(annsKey, "for carol", "X-Herald-User", "carol", "X-Herald-Session-Id", "notes").statusCode())
                .as("an admin's key may name the user").isEqualTo(200);
        assertThat(complete(KEY, "configured key", "X-Herald-User", "dan", "X-Herald-Session-Id", "notes").statusCode()).isEqualTo(200);
        assertThat(apiChats()).containsExactly("carol/notes", "dan/notes", "u:bob/notes");

        eve.post("/chat/api/keys/revoke", "{\"id\":\"" + bobsKeyId + "\"}", 404);
        assertThat(complete(bobsKey, "still mine", "X-Herald-Session-Id", "notes").statusCode()).as("after eve's try").isEqualTo(200);
        JsonNode usage = ann.get("/admin/api/keys");
        assertThat(usage.toString()).contains("\"id\":\"" + bobsKeyId + "\"", "\"owner\":\"bob\"", "\"uses\":3");
        String metrics = send(ann.http, HttpRequest.newBuilder(URI.create(web.baseUrl() + "/metrics")).GET()).body();
        assertThat(metrics).containsPattern("herald_api_key_requests_total\\{key=\"" + bobsKeyId + "\",user=\"bob\"} 3\\.0");

        bob.post("/chat/api/keys/revoke", "{\"id\":\"" + bobsKeyId + "\"}", 200);
        HttpResponse<String> revoked = complete(bobsKey, "after revoke");
        assertThat(revoked.statusCode()).isEqualTo(401);
        assertThat(revoked.body()).contains("invalid API key").doesNotContain(bobsKey);
        assertThat(complete("hk_aaaaaaaaaa_" + "x".repeat(43), "a guess").statusCode()).isEqualTo(401);
    }

    /** An account's key in the official {@code openai} npm client (client.mjs): everything works, and the session is the account's. */
    @Test
    void anAccountsKey_inTheOfficialOpenaiClient_worksAsTheConfiguredKeyDoes_andItsSessionIsTheAccounts() throws Exception {
        OpenAiNodeClientTest.requireNodeClient();
        Page ann = new Page();
        ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}", 200);
        ann.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}", 200);
        Page bob = new Page();
        bob.post("/auth/login", "{\"name\":\"bob\",\"password\":\"bob's password\"}", 200);
        String bobsKey = bob.post("/chat/api/keys/create", "{\"label\":\"node\"}", 200).path("key").asText();

        java.util.Map<String, JsonNode> steps = OpenAiNodeClientTest.runClient(web.baseUrl(), bobsKey);

        assertThat(steps.get("models").path("ids").path(0).asText()).isEqualTo("herald");
        assertThat(steps.get("completion").path("finish").asText()).isEqualTo("stop");
        assertThat(steps.get("stream").path("finish").asText()).isEqualTo("stop");
        assertThat(steps.get("session").path("content").asText()).isNotBlank();
        assertThat(steps.get("wrongKey").path("status").asInt()).isEqualTo(401);
        assertThat(steps.get("badRequest").path("status").asInt()).isEqualTo(400);
        assertThat(apiChats()).as("the durable session is bob's").containsExactly("u:bob/node-session");
        JsonNode keys = ann.get("/admin/api/keys").path("keys"); // the admin page: each key's use, counted
        assertThat(keys.path(0).path("owner").asText()).isEqualTo("bob");
        assertThat(keys.path(0).path("uses").asLong()).as("models, completion, stream, session, bad request").isEqualTo(5);
    }

    @Test
    void aDisabledAccountsKey_stopsWorking() {
        Page ann = new Page();
        ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}", 200);
        ann.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}", 200);
        Page bob = new Page();
        bob.post("/auth/login", "{\"name\":\"bob\",\"password\":\"bob's password\"}", 200);
        String bobsKey = bob.post("/chat/api/keys/create", "{}", 200).path("key").asText();
        assertThat(complete(bobsKey, "hello").statusCode()).isEqualTo(200);

        ann.post("/admin/api/users/disable", "{\"name\":\"bob\"}", 200);

        assertThat(complete(bobsKey, "hello again").statusCode()).isEqualTo(401);
    }
}
