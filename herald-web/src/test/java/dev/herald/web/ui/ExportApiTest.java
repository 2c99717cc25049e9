package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.session.SessionKey;
import dev.herald.testkit.agent.ScriptedAgent;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin page's transcript download over HTTP, against a real gateway and store. */
class ExportApiTest {
    @TempDir
    Path dir;

    @Test
    void export_answersTheConversationAsAnAttachment_inJsonLinesOrMarkdown() throws Exception {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-export", "m-e-0001", "keep \"this\"");
            fx.awaitReply("conv-export", "echo: keep \"this\"");
            SessionKey key = fx.key("conv-export");

            HttpResponse<String> jsonl = fx.get("/admin/api/export?format=jsonl&key=" + key.value());
            HttpResponse<String> md = fx.get("/admin/api/export?key=" + key.value());

            assertThat(jsonl.statusCode()).isEqualTo(200);
            assertThat(jsonl.headers().firstValue("Content-Disposition")).contains(
                    "attachment; filename=\"herald-" + key.value().replace(':', '_') + ".jsonl\"");
            assertThat(jsonl.headers().firstValue("Content-Type").orElse("")).startsWith("application/x-ndjson");
            List<JsonNode> lines = jsonl.body().lines().map(ExportApiTest::parse).toList();
            assertThat(lines).extracting(l -> l.path("seq").asInt() + " " + l.path("role").asText() + ": " + l.path("content").asText())
                    .containsExactly("1 user: keep \"this\"", "2 assistant: echo: keep \"this\"");
            assertThat(lines).allSatisfy(l -> assertThat(l.path("session_key").asText()).isEqualTo(key.value()));
            assertThat(md.statusCode()).isEqualTo(200);
            assertThat(md.headers().firstValue("Content-Type").orElse("")).startsWith("text/markdown");
            assertThat(md.body()).startsWith("# Herald conversation: " + key.value() + "\n").contains("**assistant** · ")
                    .contains("echo: keep \"this\"");
        }
    }

    @Test
    void export_ofAnUnknownSessionOrFormat_isAClearError() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            HttpResponse<String> unknown = fx.get("/admin/api/export?key=agent:main:webchat:dm:nobody");
            HttpResponse<String> pdf = fx.get("/admin/api/export?format=pdf&key=agent:main:webchat:dm:nobody");

            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(unknown.body()).contains("no session with key 'agent:main:webchat:dm:nobody'");
            assertThat(pdf.statusCode()).isEqualTo(400);
            assertThat(pdf.body()).contains("format must be jsonl or markdown, was 'pdf'");
        }
    }

    private static JsonNode parse(String line) {
        try {
            return new ObjectMapper().readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }
}
