package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.UserErrors;
import dev.herald.store.sqlite.FullDisk;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What HTTP clients see while the store cannot write (a real SQLITE_FULL, {@link FullDisk}), in one JVM with the real
 * wiring: the API answers 503 with Retry-After and a text for users, {@code /health/ready} says not ready with the reason,
 * the admin status shows the operator's problem, and once space is free all of it is back without a restart.
 */
class StoreOutageHttpTest {
    @TempDir
    Path home;
    FakeModelServer model = FakeModelServer.start();
    InProcessHerald herald;
    final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    private void start() throws Exception {
        String yaml = "model:\n  base_url: " + model.baseUrl() + "\n  name: test-model\n  max_retries: 0\n"
                + "platforms:\n  api_server:\n    port: {port}\n    request_timeout_seconds: 30\n"
                + "agent:\n  tools: []\nstore:\n  outage_wait_seconds: 1\n";
        herald = InProcessHerald.in(home).start(yaml);
    }

    private HttpResponse<String> ask(String text) throws Exception {
        String body = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
        return http.send(HttpRequest.newBuilder(herald.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json").header("X-Herald-Session-Id", "notes").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(herald.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String head(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "...";
    }

    @Test
    void fullDisk_answers503WithRetryAfter_readyGoesNotReadyWithTheReason_andBothComeBackOnceSpaceIsFree() throws Exception {
        start();
        model.enqueue(Reply.text("first answer"));
        assertThat(HeraldProcess.answer(ask("hello"))).isEqualTo("first answer");
        assertThat(get("/health/ready").statusCode()).isEqualTo(200);
        SqliteStorage store = (SqliteStorage) herald.wiring().storage();

        FullDisk.fill(store);
        HttpResponse<String> refused = ask("x".repeat(30_000)); // needs new pages: the store finds the disk full

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("10");
        JsonNode error = HeraldProcess.JSON.readTree(refused.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("store_unavailable");
        assertThat(UserErrors.unfit(error.path("message").asText())).as(error.path("message").asText()).isEmpty();
        HttpResponse<String> ready = get("/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(HeraldProcess.JSON.readTree(ready.body()).path("status").asText()).isEqualTo("store_unavailable");
        assertThat(HeraldProcess.JSON.readTree(ready.body()).path("reason").asText()).isEqualTo("the disk is full");
        assertThat(ready.body()).doesNotContain(home.toString());
        JsonNode admin = HeraldProcess.JSON.readTree(get("/admin/api/status").body()).path("store");
        assertThat(admin.path("writable").asBoolean()).isFalse();
        assertThat(admin.path("problem").asText()).contains("herald.db", "SQLITE_FULL");
        assertThat(ask("short one").statusCode()).as("refused at once while the store is known to be down").isEqualTo(503);

        FullDisk.free(store);

        await().atMost(Duration.ofSeconds(15)).until(() -> get("/health/ready").statusCode() == 200);
        model.enqueue(Reply.text("answer after the disk was freed"));
        assertThat(head(HeraldProcess.answer(ask("short one")))).isEqualTo("answer after the disk was freed");
        assertThat(HeraldProcess.JSON.readTree(get("/admin/api/status").body()).path("store").path("writable").asBoolean()).isTrue();
    }
}
