package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model profiles, request fields, client tools and images through the real wiring (SQLite store, gateway, profile
 * agent, API server) against a scripted model server on loopback: what an API client sends reaches the model that
 * it named, or is refused with a 400 naming it.
 */
class ModelProfilesApiTest {
    /** A 1x1 PNG. */
    static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path home;
    final FakeModelServer model = FakeModelServer.start();
    final HttpClient http = HttpClient.newHttpClient();
    InProcessHerald herald;

    @BeforeEach
    void start() throws Exception {
        model.defaultReply(ModelProfilesApiTest::script);
        String yaml = """
                model:
                  base_url: %s
                  name: small-model
                  max_retries: 0
                  idle_timeout_seconds: 10
                models:
                  eye:
                    name: eye-model
                    vision: true
                    temperature: 0.3
                  fast:
                    name: fast-model
                platforms:
                  api_server:
                    port: {port}
                    request_timeout_seconds: 30
                agent:
                  tools: [list_dir]
                """.formatted(model.baseUrl());
        herald = InProcessHerald.in(home).start(yaml);
    }

    /** Calls the client's weather tool when offered and not yet answered; else says which model answers. */
    static Reply script(RecordedRequest r) {
        List<RecordedRequest.Message> messages = r.messages();
        RecordedRequest.Message last = messages.getLast();
        if (last.role().equals("tool")) {
            return Reply.text("It is " + last.content() + " in Oslo.").withUsage(20, 6);
        }
        if (r.toolNames().contains("get_weather")) {
            return Reply.toolCalls(new Reply.ToolCall("call_w1", "get_weather", "{\"city\":\"Oslo\"}")).withUsage(15, 3);
        }
        return Reply.text("answer from " + r.model() + (r.imageUrls().isEmpty() ? "" : " seeing " + r.imageUrls().size())).withUsage(11, 4);
    }

    @AfterEach
    void stop() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    @Test
    void models_listsHeraldAndEveryProfile_andTheModelFieldSelectsOne() throws Exception {
        JsonNode list = json(get("/v1/models").body());
        assertThat(list.path("data")).extracting(n -> n.path("id").asText()).containsExactly("herald", "default", "eye", "fast");

        HttpResponse<String> fast = post(body("fast", "hi", ""), null);
        HttpResponse<String> plain = post(body("herald", "hi", ""), null);

        assertThat(content(fast)).isEqualTo("answer from fast-model");
        assertThat(json(fast.body()).path("model").asText()).isEqualTo("fast");
        assertThat(content(plain)).isEqualTo("answer from small-model");
    }

    @Test
    void unknownModel_is400ListingTheNames_andNothingReachesTheModel() throws Exception {
        HttpResponse<String> r = post(body("gpt-4o", "hi", ""), null);

        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode error = json(r.body()).path("error");
        assertThat(error.path("param").asText()).isEqualTo("model");
        assertThat(error.path("message").asText()).contains("gpt-4o").contains("herald, default, eye, fast");
        assertThat(model.requests()).isEmpty();
    }

    @Test
    void samplingAndResponseFormat_reachTheModel_overridingTheProfile() throws Exception {
        post(body("eye", "json please", ",\"temperature\":0.7,\"top_p\":0.5,\"max_tokens\":64,\"seed\":7,\"stop\":[\"END\"],"
                + "\"response_format\":{\"type\":\"json_object\"},\"user\":\"u-42\""), null);
        JsonNode sent = model.lastRequest().json();
        post(body("eye", "defaults", ""), null);
        JsonNode profileOnly = model.lastRequest().json();

        assertThat(sent.path("model").asText()).isEqualTo("eye-model");
        assertThat(sent.path("temperature").asDouble()).isEqualTo(0.7);
        assertThat(sent.path("top_p").asDouble()).isEqualTo(0.5);
        assertThat(sent.path("max_tokens").asInt()).isEqualTo(64);
        assertThat(sent.path("seed").asInt()).isEqualTo(7);
        assertThat(sent.path("stop").path(0).asText()).isEqualTo("END");
        assertThat(sent.path("response_format").path("type").asText()).isEqualTo("json_object");
        assertThat(sent.path("user").asText()).isEqualTo("u-42");
        assertThat(profileOnly.path("temperature").asDouble()).isEqualTo(0.3);
        assertThat(profileOnly.has("top_p")).isFalse();
    }

    @Test
    void fieldsHeraldCannotHonour_are400NamingThem() throws Exception {
        for (String[] bad : new String[][] {{",\"n\":2", "n"}, {",\"logprobs\":true", "logprobs"}, {",\"frobnicate\":1", "frobnicate"},
                {",\"temperature\":3", "temperature"}, {",\"store\":true", "store"}, {",\"tool_choice\":\"auto\"", "tool_choice"}}) {
            HttpResponse<String> r = post(body("herald", "hi", bad[0]), null);
            assertThat(r.statusCode()).as(bad[0]).isEqualTo(400);
            assertThat(json(r.body()).path("error").path("param").asText()).as(bad[0]).isEqualTo(bad[1]);
        }
        assertThat(model.requests()).isEmpty();
    }

    @Test
    void session_modelCommandSwitchesTheChat_andRequestParametersAndUsageWork() throws Exception {
        HttpResponse<String> list = post(body("herald", "/model", ""), "s1");
        HttpResponse<String> switched = post(body("herald", "/model eye", ""), "s1");
        HttpResponse<String> answer = post(body("herald", "look", ",\"temperature\":0.1"), "s1");

        assertThat(content(list)).contains("default (small-model)").contains("eye (eye-model, sees images)").contains("fast (fast-model)");
        assertThat(content(switched)).contains("Model for this chat: eye");
        assertThat(content(answer)).isEqualTo("answer from eye-model");
        assertThat(model.lastRequest().json().path("temperature").asDouble()).isEqualTo(0.1);
        assertThat(json(answer.body()).path("usage").path("total_tokens").asLong()).isEqualTo(15);
        assertThat(content(post(body("herald", "another chat", ""), "s2"))).isEqualTo("answer from small-model");
    }

    @Test
    void session_clientTools_are400_becauseTheClientDoesNotHoldThatConversation() throws Exception {
        HttpResponse<String> r = post(body("herald", "weather?", "," + WEATHER_TOOL), "s1");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r.body()).path("error").path("param").asText()).isEqualTo("tools");
    }

    static final String WEATHER_TOOL = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"weather\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}]";

    @Test
    void clientTools_endTheTurnWithToolCalls_andTheNextRequestContinuesWithTheResult() throws Exception {
        HttpResponse<String> first = post(body("herald", "weather in Oslo?", "," + WEATHER_TOOL), null);
        JsonNode choice = json(first.body()).path("choices").path(0);
        assertThat(choice.path("finish_reason").asText()).isEqualTo("tool_calls");
        JsonNode call = choice.path("message").path("tool_calls").path(0);
        assertThat(call.path("function").path("name").asText()).isEqualTo("get_weather");
        assertThat(model.lastRequest().toolNames()).containsExactly("list_dir", "get_weather");

        String continued = "{\"model\":\"herald\"," + WEATHER_TOOL + ",\"messages\":[{\"role\":\"user\",\"content\":\"weather in Oslo?\"},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[" + call + "]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + call.path("id").asText() + "\",\"content\":\"sunny\"}]}";
        HttpResponse<String> second = post(continued, null);

        assertThat(content(second)).isEqualTo("It is sunny in Oslo.");
        assertThat(json(second.body()).path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        assertThat(model.lastRequest().messages()).extracting(RecordedRequest.Message::role).containsExactly("user", "assistant", "tool");
    }

    @Test
    void imageUrl_reachesAVisionProfileAsAnImagePart_andATextOnlyOneRefusesIt() throws Exception {
        String image = "[{\"type\":\"text\",\"text\":\"what is this?\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,"
                + PNG + "\"}}]";
        HttpResponse<String> seen = post("{\"model\":\"eye\",\"messages\":[{\"role\":\"user\",\"content\":" + image + "}]}", null);
        HttpResponse<String> refused = post("{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":" + image + "}]}", null);
        HttpResponse<String> remote = post("{\"model\":\"eye\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
                + "\"image_url\":{\"url\":\"https://example.com/cat.png\"}}]}]}", null);

        assertThat(content(seen)).isEqualTo("answer from eye-model seeing 1");
        assertThat(model.requests().getFirst().imageUrls()).containsExactly("data:image/png;base64," + PNG);
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(json(refused.body()).path("error").path("message").asText()).contains("cannot see images").contains("eye");
        assertThat(remote.statusCode()).isEqualTo(400);
        assertThat(json(remote.body()).path("error").path("message").asText()).contains("data: URL");
        assertThat(model.requests()).hasSize(1);
    }

    @Test
    void sessionImage_isStoredByReference_shownToAVisionModel_andATextOnlyModelSaysSoOnce() throws Exception {
        String image = "[{\"type\":\"text\",\"text\":\"see?\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64," + PNG + "\"}}]";
        String request = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":" + image + "}]}";
        post(body("herald", "/model eye", ""), "vision-chat");

        HttpResponse<String> seen = post(request, "vision-chat");
        HttpResponse<String> blind = post(request, "text-chat");
        HttpResponse<String> blindAgain = post(request, "text-chat");

        assertThat(content(seen)).isEqualTo("answer from eye-model seeing 1");
        assertThat(content(blind)).startsWith("answer from small-model").contains("small-model cannot see images");
        assertThat(content(blindAgain)).isEqualTo("answer from small-model");
        List<String> stored = transcriptOf("vision-chat");
        assertThat(stored).contains("see?");
        assertThat(rowsOf("vision-chat")).anySatisfy(r -> assertThat(r.attachments()).singleElement()
                .satisfies(a -> assertThat(a.ref()).startsWith("upload:")));
        assertThat(String.join("\n", stored)).doesNotContain(PNG);
        assertThat(Files.list(home.resolve("media"))).hasSize(3);
    }

    private List<TranscriptRow> rowsOf(String chat) {
        SessionEntry entry = herald.wiring().storage().sessions().search(SessionQuery.all(50)).stream()
                .filter(e -> e.origin() != null && e.origin().chatId().equals(chat)).findFirst().orElseThrow();
        return herald.wiring().storage().transcripts().load(entry.sessionId());
    }

    private List<String> transcriptOf(String chat) {
        SessionEntry entry = herald.wiring().storage().sessions().search(SessionQuery.all(50)).stream()
                .filter(e -> e.origin() != null && e.origin().chatId().equals(chat)).findFirst().orElseThrow();
        return herald.wiring().storage().transcripts().load(entry.sessionId()).stream().map(TranscriptRow::content)
                .filter(java.util.Objects::nonNull).toList();
    }

    private static String body(String model, String text, String extra) throws Exception {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":" + JSON.writeValueAsString(text) + "}]" + extra + "}";
    }

    private HttpResponse<String> post(String body, String session) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(herald.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            b.header("X-Herald-Session-Id", session);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(herald.uri(path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String content(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return json(r.body()).path("choices").path(0).path("message").path("content").asText();
    }

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }
}
