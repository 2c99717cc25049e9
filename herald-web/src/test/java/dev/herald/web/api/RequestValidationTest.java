package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.KEY;
import static dev.herald.web.api.ApiFixture.body;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What is refused before a turn starts: bad JSON, bad headers, missing or wrong keys, oversize bodies. */
class RequestValidationTest {
    private ApiFixture fx;

    @AfterEach
    void tearDown() {
        if (fx != null) {
            fx.close();
        }
    }

    private static JsonNode error(HttpResponse<String> r) {
        return json(r.body()).path("error");
    }

    @Test
    void malformedJson_is400NamingTheProblem() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("x"));

        HttpResponse<String> r = fx.post("{\"messages\": [ {\"role\": \"user\", ");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r).path("message").asText()).contains("not valid JSON").contains("line 1");
        assertThat(error(r).path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(fx.agent.requests).isEmpty();
    }

    @Test
    void missingOrEmptyMessages_is400NamingMessages() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("x"));

        for (String bad : new String[] {"{}", "{\"messages\":[]}", "{\"messages\":\"hi\"}"}) {
            HttpResponse<String> r = fx.post(bad);
            assertThat(r.statusCode()).as(bad).isEqualTo(400);
            assertThat(error(r).path("param").asText()).as(bad).isEqualTo("messages");
            assertThat(error(r).path("message").asText()).as(bad).contains("'messages'");
        }
    }

    @Test
    void noUserMessage_is400() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("x"));

        HttpResponse<String> r = fx.post("{\"messages\":[{\"role\":\"system\",\"content\":\"only a system prompt\"}]}");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r).path("message").asText()).contains("no user message");
    }

    @Test
    void unsupportedContentPart_is400NamingThePart() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("x"));

        HttpResponse<String> r = fx.post("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}}]}]}");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r).path("message").asText()).contains("messages[0].content[0]").contains("image_url");
    }

    @Test
    void unknownV1Path_is404InOpenAiShape_whateverTheMethod() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("x"));

        for (HttpResponse<String> r : List.of(fx.get("/v1/embeddings"), fx.send(fx.request("/v1/embeddings")
                .POST(HttpRequest.BodyPublishers.ofString("{\"input\":\"x\"}")).build()), fx.get("/v1/files/abc"))) {
            assertThat(r.statusCode()).as(r.uri().toString()).isEqualTo(404);
            assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
            assertThat(error(r).path("type").asText()).isEqualTo("invalid_request_error");
            assertThat(error(r).path("code").asText()).isEqualTo("not_found");
            assertThat(error(r).path("message").asText()).isNotBlank();
        }
    }

    @Test
    void badSessionName_is400NamingTheHeader() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("x"));

        HttpResponse<String> spaces = fx.post(body("hi", false), "X-Herald-Session-Id", "has spaces");
        HttpResponse<String> tooLong = fx.post(body("hi", false), "X-Hermes-Session-Id", "a".repeat(129));

        assertThat(spaces.statusCode()).isEqualTo(400);
        assertThat(error(spaces).path("message").asText()).contains("X-Herald-Session-Id");
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(error(tooLong).path("message").asText()).contains("X-Hermes-Session-Id");
        assertThat(fx.gateway.events).isEmpty();
    }

    @Test
    void longestValidSessionName_isAccepted() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("x"));

        HttpResponse<String> r = fx.post(body("hi", false), "X-Herald-Session-Id", "A-z_0.9:".repeat(16));

        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void missingKey_is401() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("x"));

        HttpResponse<String> r = fx.send(HttpRequest.newBuilder(java.net.URI.create(fx.baseUrl() + "/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(body("hi", false))).build());

        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(error(r).path("message").asText()).contains("missing API key");
        assertThat(r.body()).doesNotContain(KEY);
    }

    @Test
    void wrongKey_is401AndNeitherKeyIsEchoedOrLogged() throws Exception {
        Logger root = (Logger) LoggerFactory.getLogger("dev.herald");
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        root.addAppender(logs);
        try {
            fx = ApiFixture.start(ScriptedAgent.replying("x"));
            String wrong = "sk-wrong-guess-0815";

            HttpResponse<String> chat = fx.send(HttpRequest.newBuilder(java.net.URI.create(fx.baseUrl() + "/v1/chat/completions"))
                    .header("Authorization", "Bearer " + wrong).POST(HttpRequest.BodyPublishers.ofString(body("hi", false))).build());
            HttpResponse<String> models = fx.send(HttpRequest.newBuilder(java.net.URI.create(fx.baseUrl() + "/v1/models"))
                    .header("Authorization", "Bearer " + wrong).GET().build());
            fx.post(body("a good request", false));

            assertThat(chat.statusCode()).isEqualTo(401);
            assertThat(models.statusCode()).isEqualTo(401);
            assertThat(error(chat).path("message").asText()).contains("invalid API key");
            assertThat(chat.body() + models.body()).doesNotContain(KEY).doesNotContain(wrong);
            assertThat(chat.headers().map().toString()).doesNotContain(KEY).doesNotContain(wrong);
            assertThat(logs.list).isNotEmpty();
            assertThat(logs.list).allSatisfy(e -> assertThat(e.getFormattedMessage()).doesNotContain(KEY).doesNotContain(wrong));
            assertThat(fx.api.settings().toString()).doesNotContain(KEY).contains("****");
        } finally {
            root.detachAppender(logs);
        }
    }

    @Test
    void noKeyConfigured_allowsEveryCaller() throws Exception {
        fx = ApiFixture.start(ApiFixture.settings().withApiKey(null), ScriptedAgent.replying("open"));

        HttpResponse<String> r = fx.post(body("hi", false));

        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void declaredBodyOverTheLimit_is413() throws Exception {
        fx = ApiFixture.start(ApiFixture.settings().withMaxBodyBytes(1024), ScriptedAgent.replying("x"));

        HttpResponse<String> r = fx.post(body("y".repeat(2_000), false));

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(error(r).path("message").asText()).contains("too large").contains("1024");
        assertThat(fx.agent.requests).isEmpty();
    }

    @Test
    void chunkedBodyOverTheLimit_is413() throws Exception {
        fx = ApiFixture.start(ApiFixture.settings().withMaxBodyBytes(1024), ScriptedAgent.replying("x"));
        byte[] big = body("z".repeat(200_000), false).getBytes();

        HttpResponse<String> r = fx.send(fx.request("/v1/chat/completions")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(Arrays.copyOf(big, big.length)))).build());

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(error(r).path("code").asText()).isEqualTo("request_too_large");
        assertThat(fx.agent.requests).isEmpty();
    }

    @Test
    void aBodyOverTheLimitThatIsStillArriving_getsIts413_everyTime_notAResetConnection() throws Exception {
        // before the refused body was read to its end, about 1 in 45 of these posts got no answer at all
        // ("header parser received no bytes"): the server closed on a client that was still sending
        fx = ApiFixture.start(ScriptedAgent.replying("x"));
        String big = body("z".repeat(1_100_000), false);

        for (int i = 0; i < 150; i++) {
            assertThat(fx.get("/v1/nothing-here").statusCode()).isEqualTo(404);
            HttpRequest.BodyPublisher publisher = i % 5 == 4
                    ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes()))
                    : HttpRequest.BodyPublishers.ofString(big);
            HttpResponse<String> r = fx.send(fx.request("/v1/chat/completions").POST(publisher).build());

            assertThat(r.statusCode()).as("post %d", i).isEqualTo(413);
            assertThat(error(r).path("code").asText()).isEqualTo("request_too_large");
        }
        assertThat(fx.agent.requests).isEmpty();
    }

    @Test
    void chunkedBodyUnderTheLimit_isRead() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("fine"));
        byte[] small = body("chunked", false).getBytes();

        HttpResponse<String> r = fx.send(fx.request("/v1/chat/completions")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(small))).build());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(fx.agent.requests.getFirst().userMessage()).isEqualTo("chunked");
    }

    @Test
    void beforeTheGatewayStartsTheAdapter_requestsAre503() throws Exception {
        fx = ApiFixture.unstarted(ScriptedAgent.replying("x"));

        HttpResponse<String> r = fx.post(body("too early", false));

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        assertThat(error(r).path("message").asText()).contains("starting");
    }
}
