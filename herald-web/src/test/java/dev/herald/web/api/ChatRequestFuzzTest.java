package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.testkit.fuzz.Fuzzer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The API's request JSON from outside: a body either parses or fails with the API's own 400 naming the problem;
 * over the wire, no body gets a 5xx, every error is OpenAI-style JSON, and a refused body reaches no turn.
 */
@Tag("fuzz")
class ChatRequestFuzzTest {
    static final List<String> CORPUS = List.of(
            """
            {"model":"herald","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"s"},
             {"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c",
             "type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"},
             {"role":"user","content":"go"}]}""",
            """
            {"model":"gpt-4o-mini","temperature":0.2,"max_tokens":64,"user":"u1","messages":[{"role":"user","content":"hello"}]}""",
            """
            {"messages":[{"role":"developer","content":"be brief"},{"role":"user","name":"ann","content":[{"type":"text","text":"a"},
             {"type":"text","text":"b"}]}],"stream":false}""");

    @Test
    void parsing_eitherSucceedsOrFailsWithA400_neverAnythingElse() {
        Fuzzer.of("api request", CORPUS, 20_000).run(body -> {
            try {
                ChatRequest request = ChatRequest.parse(body.getBytes(StandardCharsets.UTF_8));
                assertThat(request.userMessage()).isNotBlank();
            } catch (ApiError e) {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.getMessage()).isNotBlank();
                throw e;
            }
        }, t -> t instanceof ApiError);
    }

    @Test
    void overTheWire_noBodyGetsA5xx_errorsAreOpenAiJson_andARefusedBodyReachesNoTurn() throws Exception {
        ScriptedAgent agent = ScriptedAgent.replying("ok");
        try (ApiFixture api = ApiFixture.start(agent)) {
            Fuzzer.wire("api wire", CORPUS, 400).run(body -> {
                int turnsBefore = agent.requests.size() + api.gateway.events.size();
                HttpResponse<String> r = body.contains("\"stream\":true")
                        ? api.post(body.replace("\"stream\":true", "\"stream\":false"), "X-Herald-Session-Id", "fuzz-1")
                        : api.post(body);
                assertThat(r.statusCode()).as("status for %s", r.body()).isLessThan(500);
                if (r.statusCode() >= 400) {
                    JsonNode error = ApiFixture.json(r.body()).path("error");
                    assertThat(error.path("message").asText()).isNotBlank();
                    assertThat(error.path("type").asText()).isNotBlank();
                    assertThat(agent.requests.size() + api.gateway.events.size()).as("a refused body starts no turn").isEqualTo(turnsBefore);
                }
            }, t -> false);
        }
    }
}
