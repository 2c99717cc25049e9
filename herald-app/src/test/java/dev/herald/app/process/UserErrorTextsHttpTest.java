package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.UserErrors;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The error texts an API client reads when the model fails, through the real gateway (a durable session) and the
 * stateless path, follow the one rule for user texts ({@link UserErrors}): no log subject, no class name, no endpoint.
 */
class UserErrorTextsHttpTest {
    @TempDir
    Path home;
    FakeModelServer model = FakeModelServer.start();
    InProcessHerald herald;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        String yaml = "model:\n  base_url: " + model.baseUrl() + "\n  name: test-model\n  max_retries: 0\n"
                + "platforms:\n  api_server:\n    port: {port}\n    request_timeout_seconds: 30\nagent:\n  tools: []\n";
        herald = InProcessHerald.in(home).start(yaml);
    }

    @AfterEach
    void tearDown() {
        herald.close();
        model.close();
    }

    private String errorMessage(String session) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(herald.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"));
        if (session != null) {
            b.header("X-Herald-Session-Id", session);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isGreaterThanOrEqualTo(500);
        return HeraldProcess.JSON.readTree(r.body()).path("error").path("message").asText();
    }

    @Test
    void modelFailures_readAsUserTexts_inASessionAndStateless() throws Exception {
        List<Reply> failures = List.of(
                Reply.toolCalls(Reply.ToolCall.of("get_weather", "{}")),
                Reply.stream().withFinishReason("content_filter"),
                Reply.stream().withFinishReason("length"),
                Reply.error(500, "overloaded"));
        int n = 0;
        for (Reply failure : failures) {
            for (String session : new String[] {"s" + n++, null}) {
                model.enqueue(failure);
                String text = errorMessage(session);
                assertThat(text).as("%s (session %s)", failure, session).isNotBlank().doesNotContain("model - ", model.baseUrl().toString());
                assertThat(UserErrors.unfit(text)).as(text).isEmpty();
            }
        }
    }
}
