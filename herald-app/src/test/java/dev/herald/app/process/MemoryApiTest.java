package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long-term memory through the real wiring (configuration, SQLite, gateway, agent, API server on loopback) and a
 * scripted model: a fact the model remembers in one API session is in the system prompt of the same user's next,
 * new session, not in another user's; {@code agent.memory.enabled: false} offers no tool and adds no facts.
 */
class MemoryApiTest {
    @TempDir
    Path home;
    final FakeModelServer model = FakeModelServer.start().defaultReply(r -> Reply.text("ok"));
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    InProcessHerald herald;

    private void start(String memoryYaml) throws Exception {
        String yaml = "model:\n  base_url: " + model.baseUrl() + "\n  name: test-model\n  connect_timeout_seconds: 2\n"
                + "  idle_timeout_seconds: 10\n  max_retries: 0\n"
                + "platforms:\n  api_server:\n    port: {port}\n    request_timeout_seconds: 30\n"
                + "agent:\n  tools: [memory, todo]\n" + memoryYaml;
        herald = InProcessHerald.in(home).start(yaml);
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    private String post(String text, String session, String user) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(herald.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json").header("X-Herald-Session-Id", session).timeout(Duration.ofSeconds(40))
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":"
                        + HeraldProcess.JSON.writeValueAsString(text) + "}]}"));
        if (user != null) {
            b.header("X-Herald-User", user);
        }
        return HeraldProcess.answer(http.send(b.build(), HttpResponse.BodyHandlers.ofString()));
    }

    private String system() {
        return model.lastRequest().messages().stream().filter(m -> m.role().equals("system")).map(RecordedRequest.Message::content)
                .findFirst().orElse("");
    }

    @Test
    void aFactRememberedInOneSession_isInTheSameUsersNewSession_andNotInAnotherUsers() throws Exception {
        start("");
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("c1", "memory", "{\"action\":\"remember\",\"text\":\"Prefers green tea\"}")),
                Reply.text("Noted."));
        assertThat(post("remember that I prefer green tea", "first", "ann")).isEqualTo("Noted.");
        assertThat(model.lastRequest().messages().getLast().content()).startsWith("Remembered as fact ");

        assertThat(post("what should I drink?", "second", "ann")).isEqualTo("ok");
        assertThat(system()).contains("\n- Prefers green tea (");

        post("what should I drink?", "third", "bob");
        assertThat(system()).doesNotContain("tea");
    }

    @Test
    void memoryOff_offersNoTool_andPutsNoFactsIntoThePrompt() throws Exception {
        try (var s = dev.herald.store.sqlite.SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            s.memories().add("api_server:ann", "Prefers green tea", null, dev.herald.core.memory.Memory.Status.ACTIVE, java.time.Instant.now());
        }
        start("  memory:\n    enabled: false\n");
        post("hello", "first", "ann");
        assertThat(model.lastRequest().toolNames()).containsExactly("todo");
        assertThat(system()).doesNotContain("What you remember").doesNotContain("tea");
    }
}
