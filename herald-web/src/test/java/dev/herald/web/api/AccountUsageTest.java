package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.body;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.store.sqlite.SqliteStorage;
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
 * Usage per account on the admin page's users list, over real HTTP, a real gateway (web chat and API) and a real
 * SQLite store: each account's figures are its own web chat turns, its own API key's durable requests and the turns of
 * its linked chat identities, with the model tokens reported for them.
 */
class AccountUsageTest {
    @TempDir
    Path dir;
    private GatewayHarness kit;
    private WebServer web;
    private Gateway gateway;

    /** An agent whose every turn reports 100 input and 10 output tokens per word of the message. */
    private static final class CountingAgent implements Agent {
        @Override
        public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
            long words = request.userMessage().strip().split("\\s+").length;
            listener.onUsage(100 * words, 10 * words);
            listener.onMessage(ChatMessage.assistant("You said: " + request.userMessage()));
            return new TurnOutcome.Final("You said: " + request.userMessage());
        }

        @Override
        public String describe() {
            return "counting test agent";
        }
    }

    @BeforeEach
    void setUp() {
        Clock clock = Clock.systemUTC();
        Agent agent = new CountingAgent();
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        ApiServerPlatform api = new ApiServerPlatform(ApiServerPlatform.Settings.defaults().withPort(0), agent, web, clock);
        WebUi ui = WebUi.create(web, null, kit.storage(), SessionKey.KeyPolicy.defaults(), new HeraldMetrics(), clock, true);
        api.useApiKeys(ui.apiKeys());
        Gateway gateway = kit.gateway(agent, new Allowlists(Map.of(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll(),
                ui.chat().platform(), AccessPolicy.allowAll()), false), List.of(api, ui.chat()), List.of(), GatewaySettings.defaults(),
                GatewayMetrics.NONE);
        ui.attach(gateway);
        this.gateway = gateway;
    }

    /** Starts the web server and the gateway (after the test stored what a running gateway must not pick up). */
    private void start() {
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

        JsonNode post(String path, String json) {
            HttpResponse<String> r = send(http, HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).header("Content-Type", "application/json")
                    .header(WebAccess.CSRF_HEADER, "1").POST(HttpRequest.BodyPublishers.ofString(json)));
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
            return json(r.body());
        }

        HttpResponse<String> get(String path) {
            return send(http, HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).GET());
        }

        /** Sends {@code text} in {@code conversation} and waits for its answer in the transcript. */
        void chat(String conversation, String clientId, String text) {
            post("/chat/api/send", "{\"conversation\":\"" + conversation + "\",\"clientId\":\"" + clientId + "\",\"text\":\"" + text + "\"}");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            String transcript = "";
            while (System.nanoTime() < deadline) {
                transcript = get("/chat/api/transcript?c=" + conversation).body();
                if (transcript.contains("You said: " + text)) {
                    return;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            throw new AssertionError("no answer to '" + text + "' within 20 s: " + transcript);
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

    /** A finished turn of {@code user} on {@code platform} (a chat platform this test does not run), as the gateway stores it. */
    private void chatTurn(String platform, String user, String text) {
        dev.herald.core.session.SessionSource source = dev.herald.core.session.SessionSource.dm(dev.herald.core.platform.Platform.of(platform),
                user, user);
        var lane = kit.storage().sessions().getOrCreate(SessionKey.of(source), source);
        var turns = new dev.herald.core.turn.Turns(kit.storage().turns());
        var turn = turns.receive(lane.key(), dev.herald.core.platform.MessageEvent.text(source, text, null, java.time.Instant.now()))
                .orElseThrow();
        turns.start(turn.id(), lane.sessionId(), dev.herald.core.transcript.TranscriptRow.user(text, java.time.Instant.now())).orElseThrow();
        long words = text.split(" ").length;
        turns.addUsage(turn.id(), 100 * words, 10 * words);
        assertThat(turns.complete(turn.id(), "done")).isTrue();
    }

    private static String figure(JsonNode f) {
        return f.path("turns").asText("?") + " turns, " + f.path("inputTokens").asText("?") + " in, " + f.path("outputTokens").asText("?") + " out";
    }

    private static JsonNode user(JsonNode users, String name) {
        for (JsonNode u : users.path("users")) {
            if (u.path("name").asText().equals(name)) {
                return u;
            }
        }
        throw new AssertionError("no user " + name + " in " + users);
    }

    @Test
    void usersList_showsEachAccountsOwnTurnsAndTokens_ofItsWebChatItsApiKeyAndItsLinkedChat() {
        kit.storage().identityLinks().link("telegram:77", "bob", java.time.Instant.now());
        chatTurn("telegram", "77", "seven eight"); // bob's linked Telegram account
        chatTurn("telegram", "88", "nine"); // someone else's, not linked
        start();
        Page ann = new Page();
        ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
        ann.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}");
        ann.post("/admin/api/users/create", "{\"name\":\"cy\",\"password\":\"cy's long password\"}");
        Page bob = new Page();
        bob.post("/auth/login", "{\"name\":\"bob\",\"password\":\"bob's password\"}");

        ann.chat("anns-conv-1", "m-ann-0001", "hello");
        bob.chat("bobs-conv-1", "m-bob-0001", "one two");
        bob.chat("bobs-conv-1", "m-bob-0002", "three four five");
        String bobsKey = bob.post("/chat/api/keys/create", "{\"label\":\"laptop\"}").path("key").asText();
        assertThat(complete(bobsKey, "six", "X-Herald-Session-Id", "notes").statusCode()).isEqualTo(200);

        HttpResponse<String> list = ann.get("/admin/api/users");
        assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
        JsonNode users = json(list.body());
        JsonNode annsUsage = user(users, "ann").path("usage");
        JsonNode bobsUsage = user(users, "bob").path("usage");
        assertThat(figure(annsUsage.path("today"))).isEqualTo("1 turns, 100 in, 10 out");
        assertThat(figure(annsUsage.path("last30Days"))).isEqualTo("1 turns, 100 in, 10 out");
        assertThat(figure(bobsUsage.path("today")))
                .as("two web chat turns (2 and 3 words), one API request (1 word) and one turn of the linked chat (2 words)")
                .isEqualTo("4 turns, 800 in, 80 out");
        assertThat(figure(bobsUsage.path("last30Days"))).isEqualTo("4 turns, 800 in, 80 out");
        assertThat(figure(user(users, "cy").path("usage").path("last30Days"))).isEqualTo("0 turns, 0 in, 0 out");
        assertThat(bob.get("/admin/api/users").statusCode()).as("a user sees no one's usage").isEqualTo(403);
    }
}
