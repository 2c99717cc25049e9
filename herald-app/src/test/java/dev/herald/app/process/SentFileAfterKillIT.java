package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file the agent sends, through a real {@code herald run} (the wiring as shipped: the metered agent, the tools, the
 * outbox) and a kill -9 in the middle of its delivery: the model writes a file with write_file and sends it with
 * send_file; Herald halts right after the answer's text went out, before the file part. After the restart the client's
 * retry (the same X-Herald-Request-Id) gets the answer with its file link, the link serves the file, and the model was
 * not asked again.
 */
class SentFileAfterKillIT {
    static final Duration WAIT = Duration.ofSeconds(90);
    static final Pattern LINK = Pattern.compile("\\[report\\.txt\\]\\((http://127\\.0\\.0\\.1:\\d+/v1/files/file-\\d+-0/content)\\)");

    @TempDir
    Path dir;
    FakeModelServer model;
    HeraldProcess herald;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void setUp() throws Exception {
        model = FakeModelServer.start();
        herald = HeraldProcess.configure(dir.resolve("home"), model.baseUrl().toString(), "drain_timeout_seconds: 1", null);
        herald.rewriteConfig("agent:\n  tools: []\n", "agent:\n  tools: [write_file, send_file]\n");
    }

    @AfterEach
    void tearDown() {
        herald.close();
        model.close();
        http.close();
    }

    @Test
    void killAfterTheTextBeforeTheFile_theRetryGetsTheAnswerWithItsLink_andTheFileIsServed() throws Exception {
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("call_w", "write_file", "{\"path\":\"report.txt\",\"content\":\"Q3 revenue: 42\"}")),
                Reply.toolCalls(new Reply.ToolCall("call_s", "send_file", "{\"path\":\"report.txt\",\"caption\":\"the report\"}")),
                Reply.text("Here it is."));
        herald.start(false, HeraldProcess.env("HERALD_CRASH_AT", "outbox.after-send")).awaitReady();

        HttpResponse<String> first;
        try {
            first = herald.chat("files", "send me the report", "req-file-1", Duration.ofSeconds(60)).get();
        } catch (java.util.concurrent.ExecutionException e) {
            first = null; // the connection died with the process
        }
        assertThat(herald.awaitExit(WAIT)).as("halted after the text part was sent, as kill -9 would").isEqualTo(137);
        assertThat(first == null || first.statusCode() != 200).as("no complete answer before the kill").isTrue();

        herald.start(false, Map.of()).awaitReady();
        HttpResponse<String> retry = herald.chat("files", "send me the report", "req-file-1", Duration.ofSeconds(60)).get();

        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
        JsonNode body = HeraldProcess.JSON.readTree(retry.body());
        String content = body.path("choices").path(0).path("message").path("content").asText();
        assertThat(content).startsWith("Here it is.\n\nthe report\n[report.txt](");
        Matcher link = LINK.matcher(content);
        assertThat(link.find()).as(content).isTrue();
        HttpResponse<String> file = http.send(HttpRequest.newBuilder(URI.create(link.group(1))).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.body()).isEqualTo("Q3 revenue: 42");
        assertThat(model.requests()).as("the agent ran once: write, send, answer").hasSize(3);
    }
}
