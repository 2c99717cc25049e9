package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.retry.Backoff;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.platform.ChatType;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import dev.herald.web.WebServer;
import dev.herald.web.metrics.HeraldMetrics;
import dev.herald.web.metrics.MeteredAgent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A model stream cut mid-answer, seen by an API client: the real agent and model client on the scripted model server,
 * the API on Jetty on loopback, and for session requests the real gateway on SQLite. A streamed answer that showed
 * part of the text ends with an error event that says the answer is incomplete, never with {@code finish_reason: stop};
 * a non-streamed stateless answer showed nothing, so the model is asked again and the client gets the whole text.
 */
class CutOffAnswerApiTest {
    static final String WHOLE = "ECHO: u02-m0005 oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee";
    static final String PART = "ECHO: u02-m0005 oscar ";
    static final Backoff FAST = Backoff.jittered(Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofSeconds(5));

    @TempDir
    Path dir;
    private final FakeModelServer model = FakeModelServer.start();
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(
            new ModelSettings(model.baseUrl(), null, "llama3.1", Duration.ofSeconds(2), Duration.ofMillis(1_500), 2), FAST);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private GatewayHarness kit;
    private WebServer web;

    /** The three ways a stream breaks off, each after the first three words of {@link #WHOLE}. */
    enum Cut {
        DROPPED, STALLED, ENDED_EARLY;

        void enqueue(FakeModelServer model) {
            switch (this) {
                case DROPPED -> model.enqueue(Reply.text(WHOLE).droppedAfter(3));
                case STALLED -> model.enqueueHeld(Reply.text(WHOLE), 3);
                case ENDED_EARLY -> model.enqueue(Reply.rawLines(chunk("ECHO: "), "", chunk("u02-m0005 "), "", chunk("oscar "), ""));
            }
        }

        String notice() {
            return "(This answer is incomplete: " + (this == STALLED ? "the model stopped sending mid-answer" : "the model's answer broke off")
                    + ". Send your message again for a complete answer.)";
        }

        private static String chunk(String content) {
            return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                    + content + "\"},\"finish_reason\":null}]}";
        }
    }

    @BeforeEach
    void setUp() {
        Clock clock = Clock.systemUTC();
        HeraldMetrics metrics = new HeraldMetrics();
        MeteredAgent agent = new MeteredAgent(new ModelAgent(client), metrics);
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        ApiServerPlatform platform = new ApiServerPlatform(ApiFixture.settings(), agent, web, clock);
        Gateway gateway = kit.gateway(agent, new Allowlists(Map.of(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll()), false),
                List.of(platform), List.of(), GatewaySettings.defaults(), metrics);
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    @AfterEach
    void tearDown() {
        try {
            kit.close();
        } finally {
            client.close();
            model.close();
            http.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void streamedCompletion_modelStreamCutOff_endsWithAnErrorEventSayingItIsIncomplete(Cut cut) throws Exception {
        cut.enqueue(model);
        model.enqueue(Reply.text("a second answer must not be asked for"));

        List<String> events = ApiFixture.events(postStream(ApiFixture.body("u02-m0005 oscar", true)));

        assertThat(ApiFixture.contents(events)).containsExactly("ECHO: ", "u02-m0005 ", "oscar ");
        assertThat(events).noneMatch(e -> e.contains("\"finish_reason\":\"stop\"")).doesNotContain("[DONE]");
        JsonNode error = ApiFixture.json(events.getLast()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("answer_cut_off");
        assertThat(error.path("message").asText()).isEqualTo(cut.notice());
        assertThat(model.requests()).as("the part was shown, so the model was not asked again").hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void completion_modelStreamCutOff_isAskedAgainAndTheClientGetsTheWholeAnswer(Cut cut) throws Exception {
        cut.enqueue(model);
        model.enqueue(Reply.text(WHOLE));

        HttpResponse<String> r = post(ApiFixture.body("u02-m0005 oscar", false));

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode choice = ApiFixture.json(r.body()).path("choices").path(0);
        assertThat(choice.path("message").path("content").asText()).isEqualTo(WHOLE);
        assertThat(choice.path("finish_reason").asText()).isEqualTo("stop");
        assertThat(model.requests()).hasSize(2);
    }

    @Test
    void completion_modelStreamCutOffOnEveryAttempt_is502WithThePartAndTheNotice() throws Exception {
        model.enqueue(Reply.text(WHOLE).droppedAfter(3), Reply.text(WHOLE).droppedAfter(3), Reply.text(WHOLE).droppedAfter(3));

        HttpResponse<String> r = post(ApiFixture.body("u02-m0005 oscar", false));

        assertThat(r.statusCode()).isEqualTo(502);
        JsonNode error = ApiFixture.json(r.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("answer_cut_off");
        assertThat(error.path("message").asText()).isEqualTo(PART.strip() + "\n\n" + Cut.DROPPED.notice());
        assertThat(model.requests()).hasSize(3);
    }

    @Test
    void sessionStreamedCompletion_modelStreamCutOff_endsWithAnErrorEventAndTheTurnIsPartial() throws Exception {
        Cut.DROPPED.enqueue(model);

        List<String> events = ApiFixture.events(postStream(ApiFixture.body("u02-m0005 oscar", true), "X-Herald-Session-Id", "cut-1"));

        assertThat(ApiFixture.contents(events)).containsExactly("ECHO: ", "u02-m0005 ", "oscar ");
        assertThat(events).noneMatch(e -> e.contains("\"finish_reason\":\"stop\"")).doesNotContain("[DONE]");
        JsonNode error = ApiFixture.json(events.getLast()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("answer_cut_off");
        assertThat(error.path("message").asText()).isEqualTo(Cut.DROPPED.notice());
        SessionKey key = SessionKey.of(new SessionSource(ApiServerPlatform.PLATFORM, "cut-1", ChatType.DM, ApiServerPlatform.USER_ID, null,
                null, null));
        assertThat(kit.storage().turns().latestStarted(key).orElseThrow().outcome()).isEqualTo("partial");
    }

    @Test
    void streamedResponses_modelStreamCutOff_endsWithAnErrorEventNotResponseCompleted() throws Exception {
        Cut.ENDED_EARLY.enqueue(model);

        List<String> lines = http.send(request("/v1/responses", "{\"model\":\"herald\",\"stream\":true,\"input\":\"u02-m0005 oscar\"}"),
                HttpResponse.BodyHandlers.ofLines()).body().toList();

        assertThat(lines).noneMatch(l -> l.contains("response.completed"));
        assertThat(lines.stream().filter(l -> l.startsWith("data: ") && l.contains("output_text.delta")).count()).isEqualTo(3);
        String last = lines.stream().filter(l -> l.startsWith("data: ")).reduce((a, b) -> b).orElseThrow();
        JsonNode error = ApiFixture.json(last.substring(6));
        assertThat(error.path("type").asText()).isEqualTo("error");
        assertThat(error.path("code").asText()).isEqualTo("answer_cut_off");
        assertThat(error.path("message").asText()).isEqualTo(Cut.ENDED_EARLY.notice());
    }

    private HttpRequest request(String path, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + ApiFixture.KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return b.build();
    }

    private HttpResponse<String> post(String body) throws Exception {
        return http.send(request("/v1/chat/completions", body), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<Stream<String>> postStream(String body, String... headers) throws Exception {
        return http.send(request("/v1/chat/completions", body, headers), HttpResponse.BodyHandlers.ofLines());
    }
}
