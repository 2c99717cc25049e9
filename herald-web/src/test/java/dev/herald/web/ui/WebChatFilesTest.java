package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.OutboundFile;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.browser.BrowserScript;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files the agent sends (send_file) reach the web chat as links under the answer: the answer's transcript row lists
 * them with a download link that names the turn, never a path; the link serves the bytes (images inline, everything
 * else as an attachment that cannot be sniffed into a page); in Chromium the user downloads the file and sees the image,
 * after a reload too.
 */
class WebChatFilesTest {
    static final byte[] PNG = WebChatImageTest.PNG;
    static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = Files.createDirectories(dir.resolve("workspace")).resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }

    @Test
    void answerWithFiles_listsThemWithLinks_thatServeTheBytes_andNothingElse() throws Exception {
        ScriptedAgent agent = new ScriptedAgent();
        byte[] pdf = "%PDF-1.4 a small report".getBytes();
        agent.replyWithFiles("Here are both.", file("report.pdf", pdf, "application/pdf", "The report"), file("chart.png", PNG, "image/png", null));
        try (WebUiFixture fx = WebUiFixture.start(dir.resolve("home"), agent)) {
            fx.chat("conv-files", "m-files-0001", "send me the report and the chart");
            JsonNode transcript = fx.awaitReply("conv-files", "Here are both.");
            JsonNode answer = null;
            for (JsonNode row : transcript.path("rows")) {
                if (row.path("role").asText().equals("assistant")) {
                    answer = row;
                }
            }
            assertThat(answer).isNotNull();
            JsonNode files = answer.path("files");
            assertThat(files).as(transcript.toString()).hasSize(2);
            assertThat(files.path(0).path("name").asText()).isEqualTo("report.pdf");
            assertThat(files.path(0).path("size").asLong()).isEqualTo(pdf.length);
            assertThat(files.path(1).path("kind").asText()).isEqualTo("image");
            String pdfUrl = files.path(0).path("url").asText();
            String pngUrl = files.path(1).path("url").asText();
            assertThat(pdfUrl).matches("/chat/api/files/\\d+/0");
            assertThat(transcript.toString()).doesNotContain(dir.toString());

            HttpResponse<byte[]> got = fx.getBytes(pdfUrl);
            assertThat(got.statusCode()).isEqualTo(200);
            assertThat(got.body()).isEqualTo(pdf);
            assertThat(got.headers().firstValue("Content-Type").orElse("")).isEqualTo("application/octet-stream");
            assertThat(got.headers().firstValue("Content-Disposition").orElse("")).startsWith("attachment; filename=\"report.pdf\"");
            assertThat(got.headers().firstValue("Content-Security-Policy").orElse("")).startsWith("sandbox");
            HttpResponse<byte[]> png = fx.getBytes(pngUrl);
            assertThat(png.headers().firstValue("Content-Type").orElse("")).isEqualTo("image/png");
            assertThat(png.body()).isEqualTo(PNG);

            for (String other : new String[] {pdfUrl.replaceFirst("/0$", "/2"), pdfUrl.replaceFirst("/(\\d+)/0$", "/9$1/0"),
                    "/chat/api/files/..%2F..%2Fetc%2Fpasswd/0", "/chat/api/files/abc/0"}) {
                HttpResponse<String> miss = fx.get(other);
                assertThat(miss.statusCode()).as(other).isEqualTo(404);
            }
            Files.delete(dir.resolve("workspace/report.pdf"));
            HttpResponse<String> gone = fx.get(pdfUrl);
            assertThat(gone.statusCode()).isEqualTo(410);
            assertThat(WebUiFixture.json(gone).path("error").asText()).isEqualTo("the file report.pdf is no longer in the conversation's workspace");
        }
    }

    @Test
    void filesTheAgentSends_areDownloadedAndShown_inChromium() throws Exception {
        ScriptedAgent agent = new ScriptedAgent();
        agent.replyWithFiles("Here are both.", file("report.pdf", "%PDF-1.4 the quarterly report".getBytes(), "application/pdf", null),
                file("chart.png", PNG, "image/png", null));
        try (WebUiFixture fx = WebUiFixture.start(dir.resolve("home"), agent);
                BrowserScript page = BrowserScript.start(WebChatBrowserTest.NODE_DIR, "browser/files.mjs", WebChatBrowserTest.env(fx))) {
            JsonNode links = page.awaitStep("links", STEP).path("links");
            assertThat(links).hasSize(2);
            assertThat(links.path(0).path("text").asText()).contains("report.pdf");
            JsonNode downloaded = page.awaitStep("downloaded", STEP);
            assertThat(downloaded.path("name").asText()).isEqualTo("report.pdf");
            assertThat(downloaded.path("bytes").asText()).isEqualTo("%PDF-1.4 the quarterly report");
            JsonNode image = page.awaitStep("image", STEP);
            assertThat(image.path("width").asInt()).isEqualTo(1);
            assertThat(page.awaitStep("reloaded", STEP).path("links").asInt()).isEqualTo(2);
            page.awaitDone(STEP);
        }
    }
}
