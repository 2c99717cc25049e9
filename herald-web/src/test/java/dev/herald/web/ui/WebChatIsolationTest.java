package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.OutboundFile;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.web.ui.AccountsHttpTest.Browser;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each person their own web chat: with another user's conversation id, file link or upload, every chat route answers
 * 404 (400 for an attachment) and shows nothing; the owner and the admins see it.
 */
class WebChatIsolationTest {
    @TempDir
    Path dir;

    private static JsonNode awaitReply(Browser b, String conversation, String text) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode t = null;
        while (System.nanoTime() < deadline) {
            t = WebUiFixture.json(b.get("/chat/api/transcript?c=" + conversation));
            if (t.path("rows").toString().contains(text)) {
                return t;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new AssertionError("no reply '" + text + "' within 20 s: " + t);
    }

    private static HttpResponse<String> send(Browser b, String conversation, String clientId, String text, String attachment) {
        return b.post("/chat/api/send", "{\"conversation\":\"" + conversation + "\",\"clientId\":\"" + clientId + "\",\"text\":\"" + text + "\""
                + (attachment == null ? "" : ",\"attachments\":[{\"ref\":\"" + attachment + "\"}]") + "}");
    }

    private static String upload(Browser b) {
        HttpResponse<String> up = b.send(HttpRequest.newBuilder(URI.create(b.base + "/chat/api/upload")).header("Content-Type", "image/png")
                .header(dev.herald.web.access.WebAccess.CSRF_HEADER, "1").POST(HttpRequest.BodyPublishers.ofByteArray(WebChatImageTest.PNG)));
        assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
        return WebUiFixture.json(up).path("ref").asText();
    }

    @Test
    void anotherUsersIds_getNotFoundOnEveryChatRoute_whileTheOwnerAndTheAdminSeeTheConversation() throws Exception {
        ScriptedAgent agent = new ScriptedAgent();
        Path report = Files.createDirectories(dir.resolve("workspace")).resolve("bob.txt");
        Files.writeString(report, "bob's private report");
        agent.replyWithFiles("Here is your report.", new OutboundFile(report.toRealPath().toString(), "bob.txt", "text/plain", 20, null));
        try (WebUiFixture fx = WebUiFixture.start(dir.resolve("home"), agent)) {
            Browser admin = new Browser(fx.baseUrl());
            admin.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
            admin.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}");
            admin.post("/admin/api/users/create", "{\"name\":\"eve\",\"password\":\"eve's password\"}");
            Browser bob = new Browser(fx.baseUrl());
            Browser eve = new Browser(fx.baseUrl());
            assertThat(bob.signIn("bob", "bob's password").statusCode()).isEqualTo(200);
            assertThat(eve.signIn("eve", "eve's password").statusCode()).isEqualTo(200);

            String bobsUpload = upload(bob);
            assertThat(send(bob, "bobs-conv-1", "m-bob-0001", "my report please", bobsUpload).statusCode()).isEqualTo(200);
            JsonNode bobsView = awaitReply(bob, "bobs-conv-1", "Here is your report.");
            String fileUrl = null;
            for (JsonNode row : bobsView.path("rows")) {
                if (row.path("files").size() > 0) {
                    fileUrl = row.path("files").path(0).path("url").asText();
                }
            }
            assertThat(fileUrl).as(bobsView.toString()).isNotNull();
            fx.awaitIdle();
            assertThat(bob.get(fileUrl).statusCode()).as("the owner's file").isEqualTo(200);

            // eve, with bob's ids
            assertThat(eve.get("/chat/api/transcript?c=bobs-conv-1").statusCode()).isEqualTo(404);
            assertThat(eve.get("/chat/api/transcript?c=bobs-conv-1").body()).doesNotContain("report");
            assertThat(eve.get("/chat/api/stream?c=bobs-conv-1").statusCode()).isEqualTo(404);
            assertThat(send(eve, "bobs-conv-1", "m-eve-0001", "tell me bob's secrets", null).statusCode()).isEqualTo(404);
            assertThat(eve.post("/chat/api/rename", "{\"conversation\":\"bobs-conv-1\",\"title\":\"mine now\"}").statusCode()).isEqualTo(404);
            assertThat(eve.post("/chat/api/delete", "{\"conversation\":\"bobs-conv-1\"}").statusCode()).isEqualTo(404);
            assertThat(eve.get(fileUrl).statusCode()).isEqualTo(404);
            assertThat(send(eve, "eves-conv-1", "m-eve-0002", "with bob's picture", bobsUpload).statusCode()).isEqualTo(400);
            assertThat(eve.get("/chat/api/conversations").body()).doesNotContain("bobs-conv-1");

            // nothing of bob's changed, and bob and the admin see it
            assertThat(bob.get("/chat/api/conversations").body()).contains("bobs-conv-1").doesNotContain("mine now");
            assertThat(WebUiFixture.json(bob.get("/chat/api/conversations")).path("conversations").path(0).path("hidden").asBoolean()).isFalse();
            assertThat(bob.get("/chat/api/transcript?c=bobs-conv-1").body()).doesNotContain("bob's secrets");
            assertThat(admin.get("/chat/api/conversations").body()).contains("bobs-conv-1");
            assertThat(admin.get("/chat/api/transcript?c=bobs-conv-1").statusCode()).isEqualTo(200);
            assertThat(admin.get(fileUrl).statusCode()).isEqualTo(200);
            assertThat(fx.storage.sessions().find(fx.key("bobs-conv-1")).orElseThrow().origin().userId()).isEqualTo("u:bob");
        }
    }
}
