package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import dev.herald.web.MediaStore;
import dev.herald.web.access.WebAccess;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An image uploaded in the web chat reaches a vision model as an image part: the page uploads it, sends its reference
 * with the message, the transcript keeps the reference, and the agent fetches it through the web chat's own store.
 */
class WebChatImageTest {
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==");

    @TempDir
    Path dir;

    private static HttpResponse<String> upload(WebUiFixture fx, byte[] bytes, String type) {
        return fx.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/chat/api/upload")).timeout(Duration.ofSeconds(20))
                .header(WebAccess.CSRF_HEADER, "1").header("Content-Type", type).POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build());
    }

    @Test
    void uploadedImage_isSentByReference_andTheVisionModelSeesIt() throws Exception {
        AtomicReference<MediaFetcher> chat = new AtomicReference<>();
        try (FakeModelServer model = FakeModelServer.start();
                OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "eye-model").withMaxRetries(0))) {
            model.enqueue(Reply.text("A tiny square."));
            ModelAgent agent = new ModelAgent(client, AgentSettings.DEFAULT.withVision(true, 1 << 20), ToolRegistry.none(),
                    p -> p.equals("webchat") ? Optional.ofNullable(chat.get()) : Optional.empty());
            try (WebUiFixture fx = WebUiFixture.start(dir, agent)) {
                chat.set(fx.ui.chat());
                HttpResponse<String> up = upload(fx, PNG, "image/png");
                String ref = WebUiFixture.json(up).path("ref").asText();

                HttpResponse<String> sent = fx.post("/chat/api/send", "{\"conversation\":\"conv-img\",\"clientId\":\"m-img-0001\",\"text\":\"what is it?\","
                        + "\"attachments\":[{\"ref\":\"" + ref + "\"}]}");
                JsonNode transcript = fx.awaitReply("conv-img", "A tiny square.");

                assertThat(up.statusCode()).isEqualTo(200);
                assertThat(ref).startsWith(MediaStore.PREFIX);
                assertThat(sent.statusCode()).isEqualTo(200);
                assertThat(model.lastRequest().imageUrls()).containsExactly("data:image/png;base64," + Base64.getEncoder().encodeToString(PNG));
                assertThat(transcript.path("rows")).anySatisfy(row -> {
                    assertThat(row.path("text").asText()).isEqualTo("what is it?");
                    assertThat(row.path("files").path(0).path("kind").asText()).isEqualTo("image");
                    assertThat(row.path("files").path(0).path("type").asText()).isEqualTo("image/png");
                });
            }
        }
    }

    @Test
    void imageButton_uploadsAndSendsTheImage_andTheModelSeesIt_inChromium() throws Exception {
        AtomicReference<MediaFetcher> chat = new AtomicReference<>();
        try (FakeModelServer model = FakeModelServer.start();
                OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "eye-model").withMaxRetries(0))) {
            model.enqueue(Reply.text("A tiny square."));
            ModelAgent agent = new ModelAgent(client, AgentSettings.DEFAULT.withVision(true, 1 << 20), ToolRegistry.none(),
                    p -> p.equals("webchat") ? Optional.ofNullable(chat.get()) : Optional.empty());
            try (WebUiFixture fx = WebUiFixture.start(dir, agent)) {
                chat.set(fx.ui.chat());
                try (BrowserScript page = BrowserScript.start(WebChatBrowserTest.NODE_DIR, "browser/upload.mjs", WebChatBrowserTest.env(fx))) {
                    page.awaitStep("attached", Duration.ofSeconds(60));
                    page.awaitStep("answered", Duration.ofSeconds(60));
                    page.awaitDone(Duration.ofSeconds(60));
                }
                assertThat(model.lastRequest().imageUrls()).containsExactly("data:image/png;base64," + Base64.getEncoder().encodeToString(PNG));
                assertThat(model.lastRequest().lastUserMessage()).startsWith("what is it?\n[attachment: image (image/png), ref upload:");
            }
        }
    }

    @Test
    void upload_thatIsNotAnImageOrTooLarge_isRefused_andAnUnknownReferenceTooIsRefused() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.ui.chat().useMediaStore(MediaStore.inMemory(), 64);

            HttpResponse<String> text = upload(fx, "just text, not a picture".getBytes(), "image/png");
            HttpResponse<String> big = upload(fx, new byte[65], "image/png");
            HttpResponse<String> noCsrf = fx.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/chat/api/upload"))
                    .header("Content-Type", "image/png").POST(HttpRequest.BodyPublishers.ofByteArray(PNG)).build());
            HttpResponse<String> unknown = fx.post("/chat/api/send", "{\"conversation\":\"conv-unknown\",\"clientId\":\"m-unk-0001\",\"text\":\"\","
                    + "\"attachments\":[{\"ref\":\"upload:0123456789abcdef0123456789abcdef\"}]}");

            assertThat(text.statusCode()).isEqualTo(415);
            assertThat(WebUiFixture.json(text).path("error").asText()).contains("PNG, JPEG, GIF and WebP");
            assertThat(big.statusCode()).isEqualTo(413);
            assertThat(noCsrf.statusCode()).isEqualTo(403);
            assertThat(unknown.statusCode()).isEqualTo(400);
            assertThat(WebUiFixture.json(unknown).path("error").asText()).contains("upload it again");
        }
    }
}
