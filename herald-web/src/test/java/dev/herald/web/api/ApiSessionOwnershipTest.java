package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.body;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.session.Storage;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.web.WebServer;
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
 * Durable API sessions belong to their caller, through the real gateway and a real SQLite store: one
 * caller naming another's session id gets its own session, request ids are per session, and a malformed
 * session id is a 400 that stores nothing.
 */
class ApiSessionOwnershipTest {
    private static final String KEY = "sk-api-ownership-test-2024";

    @TempDir
    Path dir;
    private GatewayHarness kit;
    private Storage storage;
    private WebServer web;
    private ApiServerPlatform api;
    private Gateway gateway;
    private final ScriptedAgent agent = new ScriptedAgent();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void setUp() {
        Clock clock = Clock.systemUTC();
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        storage = kit.storage();
        api = new ApiServerPlatform(ApiServerPlatform.Settings.defaults().withPort(0).withApiKey(KEY), agent, web, clock);
        gateway = kit.gateway(agent, new Allowlists(Map.of(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll()), false), List.of(api),
                List.of(), GatewaySettings.defaults(), GatewayMetrics.NONE);
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    /** Checks the store invariants (the harness stops the gateway first), then closes the web server and the store. */
    @AfterEach
    void tearDown() {
        kit.close();
    }

    private HttpResponse<String> post(String text, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(web.baseUrl() + "/v1/chat/completions")).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(text, false)));
        if (headers.length > 0) {
            b.headers(headers);
        }
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aCallerNamingAnotherCallersSessionId_getsASessionOfItsOwn() {
        assertThat(post("my secret number is 4711", "X-Herald-User", "alice", "X-Herald-Session-Id", "notes").statusCode()).isEqualTo(200);

        HttpResponse<String> bob = post("what is the secret number?", "X-Herald-User", "bob", "X-Herald-Session-Id", "notes");
        HttpResponse<String> aliceAgain = post("and again?", "X-Herald-User", "alice", "X-Herald-Session-Id", "notes");

        assertThat(bob.statusCode()).isEqualTo(200);
        List<String> bobsHistory = agent.calls().get(1).history().stream().map(ChatMessage::content).toList();
        assertThat(bobsHistory).as("bob's turn sees none of alice's conversation").noneMatch(m -> m.contains("4711"));
        assertThat(aliceAgain.statusCode()).isEqualTo(200);
        List<String> alicesHistory = agent.calls().get(2).history().stream().map(ChatMessage::content).toList();
        assertThat(alicesHistory).as("alice's own session continues").anyMatch(m -> m.contains("4711"));
        List<SessionEntry> sessions = storage.sessions().search(SessionQuery.all(100));
        assertThat(sessions).hasSize(2);
        assertThat(sessions).extracting(e -> e.key().value()).doesNotHaveDuplicates();
    }

    @Test
    void requestIds_arePerSession_theSameIdInAnotherSessionRuns_aRepeatInTheSameSessionGetsTheFirstAnswerWithoutRunningAgain() {
        HttpResponse<String> first = post("one", "X-Herald-Session-Id", "s1", "X-Herald-Request-Id", "r-1");
        HttpResponse<String> otherSession = post("two", "X-Herald-Session-Id", "s2", "X-Herald-Request-Id", "r-1");
        HttpResponse<String> otherCaller = post("three", "X-Herald-User", "carol", "X-Herald-Session-Id", "s1", "X-Herald-Request-Id", "r-1");
        HttpResponse<String> repeat = post("one", "X-Herald-Session-Id", "s1", "X-Herald-Request-Id", "r-1");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(otherSession.statusCode()).isEqualTo(200);
        assertThat(otherCaller.statusCode()).isEqualTo(200);
        assertThat(repeat.statusCode()).isEqualTo(200);
        assertThat(json(repeat.body()).path("choices").path(0).path("message").path("content").asText())
                .isEqualTo(json(first.body()).path("choices").path(0).path("message").path("content").asText());
        assertThat(agent.calls()).hasSize(3);
    }

    @Test
    void malformedSessionIds_are400NamingTheHeader_neverA500_andNothingIsStored() {
        for (String bad : List.of("..", "a..b", "../etc", "a/b", "a\\\\b")) {
            HttpResponse<String> r = post("hi", "X-Herald-Session-Id", bad);
            assertThat(r.statusCode()).as("session id '%s'", bad).isEqualTo(400);
            assertThat(json(r.body()).path("error").path("param").asText()).isEqualTo("X-Herald-Session-Id");
        }
        HttpResponse<String> badUser = post("hi", "X-Herald-User", "a..b", "X-Herald-Session-Id", "fine");
        assertThat(badUser.statusCode()).isEqualTo(400);
        assertThat(json(badUser.body()).path("error").path("param").asText()).isEqualTo("X-Herald-User");
        assertThat(agent.calls()).isEmpty();
        assertThat(storage.sessions().search(SessionQuery.all(100))).isEmpty();
    }
}
