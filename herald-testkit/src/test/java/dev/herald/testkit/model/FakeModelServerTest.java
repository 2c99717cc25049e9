package dev.herald.testkit.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fake itself, driven with the bare JDK client so that its wire format is checked independently. */
class FakeModelServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final FakeModelServer fake = FakeModelServer.start();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        fake.close();
        http.close();
    }

    private HttpResponse<String> chat(String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(fake.baseUrl() + "/chat/completions"))
                .header("Authorization", "Bearer k").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String request(boolean stream, String userText) {
        return "{\"model\":\"m\",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + userText + "\"}]}";
    }

    private static List<JsonNode> chunks(String sse) throws IOException {
        List<JsonNode> chunks = new java.util.ArrayList<>();
        for (String line : sse.split("\n")) {
            if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
                chunks.add(JSON.readTree(line.substring(6)));
            }
        }
        return chunks;
    }

    @Test
    void chat_emptyScript_echoesTheLastUserMessage() throws Exception {
        HttpResponse<String> response = chat(request(false, "ping"));

        JsonNode body = JSON.readTree(response.body());
        assertThat(body.path("choices").get(0).path("message").path("content").asText()).isEqualTo("echo: ping");
        assertThat(body.path("usage").path("prompt_tokens").asLong()).isPositive();
    }

    @Test
    void chat_isRecordedWithParsedBodyAndHeaders() throws Exception {
        chat(request(true, "hello"));

        RecordedRequest recorded = fake.lastRequest();
        assertThat(recorded.model()).isEqualTo("m");
        assertThat(recorded.stream()).isTrue();
        assertThat(recorded.authorization()).isEqualTo("Bearer k");
        assertThat(recorded.messages()).containsExactly(new RecordedRequest.Message("user", "hello", null, null));
    }

    @Test
    void chat_streamedReply_endsWithDoneAndCarriesTheChunks() throws Exception {
        fake.enqueue(Reply.stream("a", "b"));

        HttpResponse<String> response = chat(request(true, "x"));

        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(response.body()).endsWith("data: [DONE]\n\n");
        List<JsonNode> chunks = chunks(response.body());
        assertThat(chunks.get(0).path("choices").get(0).path("delta").path("role").asText()).isEqualTo("assistant");
        assertThat(chunks).extracting(c -> c.path("choices").get(0).path("delta").path("content").asText("")).startsWith("a", "b");
    }

    @Test
    void chat_ollamaDialect_hasNoIdsAndEndsWithAUsageOnlyChunk() throws Exception {
        fake.dialect(Dialect.OLLAMA).enqueue(Reply.stream("a"));

        List<JsonNode> chunks = chunks(chat(request(true, "x")).body());

        assertThat(chunks).allSatisfy(c -> assertThat(c.has("id")).isFalse());
        JsonNode last = chunks.get(chunks.size() - 1);
        assertThat(last.has("usage")).isTrue();
        assertThat(last.has("choices")).isFalse();
    }

    @Test
    void chat_llamaCppDialect_leavesTheIndexOffToolCallDeltas() throws Exception {
        fake.enqueue(Reply.toolCalls(Reply.ToolCall.of("f", "{\"a\":1}")).in(Dialect.LLAMA_CPP));

        List<JsonNode> chunks = chunks(chat(request(true, "x")).body());

        JsonNode firstCall = chunks.get(0).path("choices").get(0).path("delta").path("tool_calls").get(0);
        assertThat(firstCall.path("function").path("name").asText()).isEqualTo("f");
        assertThat(firstCall.has("index")).isFalse();
    }

    @Test
    void chat_error_hasTheStatusOpenAiShapedBodyAndHeaders() throws Exception {
        fake.enqueue(Reply.rateLimited(3));

        HttpResponse<String> response = chat(request(false, "x"));

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("retry-after")).hasValue("3");
        assertThat(JSON.readTree(response.body()).path("error").path("type").asText()).isEqualTo("rate_limit_error");
    }

    @Test
    void chat_requiredKeyMissing_is401() throws Exception {
        fake.requireApiKey("right");

        assertThat(chat(request(false, "x")).statusCode()).isEqualTo(401);
    }

    @Test
    void chat_heldReply_waitsForReleaseThenAnswers() throws Exception {
        Hold hold = fake.enqueueHeld(Reply.text("late"));
        CompletableFuture<HttpResponse<String>> response = CompletableFuture.supplyAsync(() -> {
            try {
                return chat(request(false, "x"));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        RecordedRequest arrived = hold.awaitArrived(Duration.ofSeconds(5));
        assertThat(arrived.lastUserMessage()).isEqualTo("x");
        assertThat(response).isNotDone();
        hold.release();

        assertThat(response.get(5, TimeUnit.SECONDS).body()).contains("late");
    }

    @Test
    void chat_droppedReply_cutsTheConnection() {
        fake.enqueue(Reply.stream("a", "b", "c").droppedAfter(1));

        assertThatThrownBy(() -> chat(request(true, "x"))).isInstanceOf(IOException.class);
    }

    @Test
    void close_releasesHeldRepliesByCuttingTheirConnections() throws Exception {
        Hold hold = fake.enqueueHeld(Reply.text("never"));
        CompletableFuture<HttpResponse<String>> response = CompletableFuture.supplyAsync(() -> {
            try {
                return chat(request(false, "x"));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        hold.awaitArrived(Duration.ofSeconds(5));

        fake.close();

        assertThatThrownBy(() -> response.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void models_listsTheConfiguredIds() throws Exception {
        fake.models("llama3.1", "qwen3");

        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(fake.baseUrl() + "/models")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(JSON.readTree(response.body()).path("data")).extracting(n -> n.path("id").asText()).containsExactly("llama3.1", "qwen3");
        assertThat(fake.requests()).as("only chat requests").isEmpty();
        assertThat(fake.allRequests()).hasSize(1);
    }
}
