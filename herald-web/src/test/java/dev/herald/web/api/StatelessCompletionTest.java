package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.body;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.transcript.Role;
import dev.herald.core.turn.TurnOutcome;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Stateless mode: the request carries the whole history and the adapter runs the agent itself. */
class StatelessCompletionTest {
    private ApiFixture fx;

    @AfterEach
    void tearDown() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void models_listsTheAdvertisedModel() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("hi"));

        HttpResponse<String> r = fx.get("/v1/models");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode list = json(r.body());
        assertThat(list.path("object").asText()).isEqualTo("list");
        assertThat(list.path("data")).hasSize(1);
        assertThat(list.path("data").path(0).path("id").asText()).isEqualTo("herald");
        assertThat(list.path("data").path(0).path("object").asText()).isEqualTo("model");
    }

    @Test
    void completion_nonStreaming_returnsReplyWithUsageAndRunsAgentOnHistory() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("Hello", ", world"));
        String request = """
                {"model":"herald","messages":[
                  {"role":"system","content":"Be brief."},
                  {"role":"user","content":"first question"},
                  {"role":"assistant","content":"first answer"},
                  {"role":"user","content":[{"type":"text","text":"second "},{"type":"text","text":"question"}]}
                ]}""";

        HttpResponse<String> r = fx.post(request);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        JsonNode c = json(r.body());
        assertThat(c.path("object").asText()).isEqualTo("chat.completion");
        assertThat(c.path("id").asText()).startsWith("chatcmpl-");
        assertThat(c.path("model").asText()).isEqualTo("herald");
        assertThat(c.path("choices").path(0).path("message").path("role").asText()).isEqualTo("assistant");
        assertThat(c.path("choices").path(0).path("message").path("content").asText()).isEqualTo("Hello, world");
        assertThat(c.path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        assertThat(c.path("usage").path("prompt_tokens").asLong()).isEqualTo(12);
        assertThat(c.path("usage").path("completion_tokens").asLong()).isEqualTo(5);
        assertThat(c.path("usage").path("total_tokens").asLong()).isEqualTo(17);

        TurnRequest turn = fx.agent.requests.getFirst();
        assertThat(turn.userMessage()).isEqualTo("second question");
        assertThat(turn.history()).extracting(ChatMessage::role).containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT);
        assertThat(turn.history()).extracting(ChatMessage::content).containsExactly("Be brief.", "first question", "first answer");
        assertThat(turn.interactive()).isFalse();
        assertThat(turn.platformId()).isEqualTo("api_server");
        assertThat(turn.sessionKey()).isNull();
        assertThat(turn.sessionId()).isNotBlank();
        assertThat(fx.gateway.events).as("stateless requests never reach the gateway").isEmpty();
    }

    @Test
    void completion_twoRequests_getFreshSessionIds() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("ok"));

        fx.post(body("a", false));
        fx.post(body("b", false));

        assertThat(fx.agent.requests).extracting(TurnRequest::sessionId).doesNotHaveDuplicates().hasSize(2);
    }

    @Test
    void completion_streaming_sendsChunksAsTheAgentStreamsThenStopThenDone() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("Hel", "lo", "!"));

        HttpResponse<Stream<String>> r = fx.postStream(
                "{\"stream\":true,\"stream_options\":{\"include_usage\":true},\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        List<String> events = ApiFixture.events(r);
        assertThat(events.getLast()).isEqualTo("[DONE]");
        assertThat(ApiFixture.contents(events)).containsExactly("Hel", "lo", "!");
        JsonNode first = json(events.getFirst());
        assertThat(first.path("object").asText()).isEqualTo("chat.completion.chunk");
        assertThat(first.path("choices").path(0).path("delta").path("role").asText()).isEqualTo("assistant");
        JsonNode stop = json(events.get(events.size() - 3));
        assertThat(stop.path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        JsonNode usage = json(events.get(events.size() - 2));
        assertThat(usage.path("choices")).isEmpty();
        assertThat(usage.path("usage").path("total_tokens").asLong()).isEqualTo(17);
        assertThat(events.stream().filter(e -> !e.equals("[DONE]")).map(e -> json(e).path("id").asText()).distinct()).hasSize(1);
    }

    @Test
    void completion_streamingAgentThatDoesNotStream_sendsTheFinalTextAsOneChunk() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((req, listener, interrupt) -> new TurnOutcome.Final("all at once")));

        List<String> events = ApiFixture.events(fx.postStream(body("hi", true)));

        assertThat(ApiFixture.contents(events)).containsExactly("all at once");
        assertThat(events.getLast()).isEqualTo("[DONE]");
    }

    @Test
    void completion_agentErrored_is502WithTheReadableMessage() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((req, l, i) -> new TurnOutcome.Errored("model unreachable: connection refused",
                "model - http://127.0.0.1:9/v1 unreachable: connection refused")));

        HttpResponse<String> r = fx.post(body("hi", false));

        assertThat(r.statusCode()).isEqualTo(502);
        JsonNode error = json(r.body()).path("error");
        assertThat(error.path("message").asText()).isEqualTo("model unreachable: connection refused");
        assertThat(error.path("type").asText()).isEqualTo("server_error");
        assertThat(error.has("param")).isTrue();
        assertThat(error.has("code")).isTrue();
    }


    @Test
    void completion_agentErrorNamingTheEndpoint_reachesTheClientWithoutIt() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((req, l, i) -> new TurnOutcome.Errored(
                "model - http://127.0.0.1:9/v1 unreachable: connection refused")));

        HttpResponse<String> r = fx.post(body("hi", false));

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(json(r.body()).path("error").path("message").asText()).isEqualTo(dev.herald.core.UserErrors.REQUEST_FAILED);
    }
    @Test
    void completion_agentErroredBeforeAnyDelta_streamingGetsTheRealStatus() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((req, l, i) -> new TurnOutcome.Errored("model unreachable")));

        HttpResponse<String> r = fx.post(body("hi", true));

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(json(r.body()).path("error").path("message").asText()).isEqualTo("model unreachable");
    }

    @Test
    void completion_agentErroredMidStream_endsTheStreamWithAnErrorEvent() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((req, listener, i) -> {
            listener.onDelta("partial ");
            return new TurnOutcome.Errored("model stream broke");
        }));

        List<String> events = ApiFixture.events(fx.postStream(body("hi", true)));

        assertThat(ApiFixture.contents(events)).containsExactly("partial ");
        assertThat(json(events.getLast()).path("error").path("message").asText()).isEqualTo("model stream broke");
    }

    @Test
    void completion_agentInterrupted_is503WithRetryAfter() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((req, l, i) -> new TurnOutcome.Interrupted("gateway draining")));

        HttpResponse<String> r = fx.post(body("hi", false));

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        assertThat(json(r.body()).path("error").path("message").asText()).contains("interrupted").contains("gateway draining");
    }

    @Test
    void completion_iterationLimit_isLengthWithThePartialReply() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((req, l, i) -> new TurnOutcome.NotCompleted("iteration limit 90 reached", "so far")));

        JsonNode c = json(fx.post(body("hi", false)).body());

        assertThat(c.path("choices").path(0).path("message").path("content").asText()).isEqualTo("so far");
        assertThat(c.path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void completion_clientDisconnectsMidStream_raisesTheTurnsInterrupt() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.streamingUntilInterrupted());

        HttpResponse<Stream<String>> r = fx.postStream(body("go on forever", true));
        Iterator<String> lines = r.body().iterator();
        assertThat(lines.next()).startsWith("data: ");
        r.body().close();

        await().atMost(Duration.ofSeconds(10)).until(() -> !fx.agent.interrupts.isEmpty() && fx.agent.lastInterrupt().isRaised());
        assertThat(fx.agent.lastInterrupt().reason()).isEqualTo("client disconnected");
    }

    @Test
    void completion_clientLeavesWhileTheTurnIsSilent_keepAliveFindsItAndRaisesTheInterrupt() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.silentUntilInterrupted(), Duration.ofMillis(100));

        HttpResponse<Stream<String>> r = fx.postStream(body("think hard", true));
        Iterator<String> lines = r.body().iterator();
        assertThat(lines.next()).isEqualTo(": keep-alive");
        r.body().close();

        await().atMost(Duration.ofSeconds(10)).until(() -> fx.agent.lastInterrupt().isRaised());
        assertThat(fx.agent.lastInterrupt().reason()).isEqualTo("client disconnected");
    }

    @Test
    void completion_slowerThanTheRequestTimeout_is504AndStopsTheTurn() throws Exception {
        fx = ApiFixture.start(ApiFixture.settings().withRequestTimeout(Duration.ofMillis(300)), ScriptedAgent.silentUntilInterrupted());

        HttpResponse<String> r = fx.post(body("take your time", false));

        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(json(r.body()).path("error").path("message").asText()).contains("no reply within");
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.agent.lastInterrupt().isRaised());
        assertThat(fx.agent.lastInterrupt().reason()).contains("timed out");
    }

    @Test
    void completion_streamingSlowerThanTheRequestTimeout_is504BeforeAnyChunk() throws Exception {
        fx = ApiFixture.start(ApiFixture.settings().withRequestTimeout(Duration.ofMillis(300)), ScriptedAgent.silentUntilInterrupted());

        HttpResponse<String> r = fx.post(body("take your time", true));

        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(json(r.body()).path("error").path("code").asText()).isEqualTo("timeout");
    }

    @Test
    void close_whileATurnRuns_answers503AndInterruptsIt() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.silentUntilInterrupted());
        var pending = fx.http.sendAsync(fx.request("/v1/chat/completions")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body("wait", false))).build(), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(5)).until(() -> !fx.agent.interrupts.isEmpty());

        fx.api.close();

        HttpResponse<String> r = pending.get();
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(json(r.body()).path("error").path("message").asText()).contains("stopping");
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.agent.lastInterrupt().isRaised());
    }
}
