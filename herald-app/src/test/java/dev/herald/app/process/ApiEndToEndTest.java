package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenAI-compatible API end to end in one JVM: the real wiring (SQLite store, gateway, model agent,
 * API server) against a scripted model server on loopback, driven by the JDK's HTTP client.
 */
class ApiEndToEndTest {
    @TempDir
    Path home;
    FakeModelServer model = FakeModelServer.start();
    InProcessHerald herald;
    final HttpClient http = HttpClient.newHttpClient();

    private void start(String modelUrl, String key) throws Exception {
        String yaml = "model:\n  base_url: " + modelUrl + "\n  name: test-model\n  connect_timeout_seconds: 2\n"
                + "  idle_timeout_seconds: 10\n  max_retries: 0\n  system_prompt: You are terse.\n"
                + "platforms:\n  api_server:\n    port: {port}\n    request_timeout_seconds: 30\n"
                + (key == null ? "" : "    key: " + key + "\n") + "agent:\n  tools: []\n";
        herald = InProcessHerald.in(home).start(yaml);
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    private HttpResponse<String> post(String body, String session, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(herald.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            b.header("X-Herald-Session-Id", session);
        }
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String user(String text) {
        return "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
    }

    @Test
    void statelessRequest_sendsTheClientsWholeHistoryToTheModelAndAnswers() throws Exception {
        start(model.baseUrl().toString(), null);
        model.enqueue(Reply.text("Paris.").withUsage(12, 2));

        HttpResponse<String> r = post("{\"messages\":[{\"role\":\"user\",\"content\":\"capital of France?\"},"
                + "{\"role\":\"assistant\",\"content\":\"Which country?\"},{\"role\":\"user\",\"content\":\"France\"}]}", null, null);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(HeraldProcess.answer(r)).isEqualTo("Paris.");
        assertThat(model.lastRequest().messages()).extracting(mm -> mm.role() + ":" + mm.content())
                .containsExactly("system:You are terse.", "user:capital of France?", "assistant:Which country?", "user:France");
    }

    @Test
    void sessionRequests_keepTheTranscriptSoTheClientSendsOnlyItsNewMessage() throws Exception {
        start(model.baseUrl().toString(), null);
        model.enqueue(Reply.text("Noted: 42."), Reply.text("It was 42."));

        assertThat(HeraldProcess.answer(post(user("remember 42"), "notes", null))).isEqualTo("Noted: 42.");
        assertThat(HeraldProcess.answer(post(user("what number?"), "notes", null))).isEqualTo("It was 42.");

        assertThat(model.lastRequest().messages()).extracting(mm -> mm.role() + ":" + mm.content())
                .containsExactly("system:You are terse.", "user:remember 42", "assistant:Noted: 42.", "user:what number?");
    }

    @Test
    void streamingSessionRequest_streamsTheModelsChunksAndEndsWithDone() throws Exception {
        start(model.baseUrl().toString(), null);
        model.enqueue(Reply.stream("one ", "two ", "three"));

        HttpResponse<String> r = post("{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}", "counting", null);

        assertThat(r.statusCode()).isEqualTo(200);
        StringBuilder text = new StringBuilder();
        for (String line : r.body().split("\n")) {
            if (line.startsWith("data: {")) {
                JsonNode chunk = HeraldProcess.JSON.readTree(line.substring(6));
                text.append(chunk.path("choices").path(0).path("delta").path("content").asText(""));
            }
        }
        assertThat(text.toString()).isEqualTo("one two three");
        assertThat(r.body().strip()).endsWith("data: [DONE]");
    }

    @Test
    void unreachableModel_gives502SayingTheModelIsUnavailable_withoutItsAddress_whichTheAdminPageShows() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        start("http://127.0.0.1:" + dead + "/v1", null);

        HttpResponse<String> r = post(user("hello"), "s", null);

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(HeraldProcess.JSON.readTree(r.body()).path("error").path("message").asText())
                .startsWith("The model is unavailable right now: it could not be reached").doesNotContain("127.0.0.1").doesNotContain(":" + dead);
        HttpResponse<String> admin = http.send(HttpRequest.newBuilder(herald.uri("/admin/api/status")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(HeraldProcess.JSON.readTree(admin.body()).path("lastError").path("detail").asText())
                .contains("unreachable", "127.0.0.1:" + dead);
    }

    @Test
    void withAKey_requestsWithoutItAreRefusedAndTheKeyIsNeverEchoed() throws Exception {
        start(model.baseUrl().toString(), "k-secret-123");

        HttpResponse<String> none = post(user("hi"), null, null);
        HttpResponse<String> wrong = post(user("hi"), null, "nope");
        HttpResponse<String> right = post(user("hi"), null, "k-secret-123");

        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(right.statusCode()).isEqualTo(200);
        assertThat(none.body() + wrong.body()).doesNotContain("k-secret-123");
    }
}
