package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import dev.herald.web.access.WebAccess;
import java.net.CookieManager;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dangerous tools and web accounts, through the real wiring: a user account's turns (here over its API key, the same
 * rule as in its web chat) are not offered {@code shell} and have their other dangerous calls denied without asking,
 * since the commands run as Herald's system user, which reads every account's data; an admin's turns are offered it;
 * {@code platforms.webchat.user_approvals: true} lets users approve again. The non-interactive API with
 * {@code non_interactive_approvals: allow} makes the difference visible: there a call would otherwise run unasked.
 */
class AccountApprovalsTest {
    @TempDir
    Path home;
    final FakeModelServer model = FakeModelServer.start().defaultReply(r -> Reply.text("ok"));
    final HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).connectTimeout(Duration.ofSeconds(5)).build();
    InProcessHerald herald;

    private void start(String webchatYaml) throws Exception {
        String yaml = "model:\n  base_url: " + model.baseUrl() + "\n  name: test-model\n  connect_timeout_seconds: 2\n"
                + "  idle_timeout_seconds: 10\n  max_retries: 0\n"
                + "platforms:\n  api_server:\n    port: {port}\n    request_timeout_seconds: 30\n" + webchatYaml
                + "agent:\n  tools: [shell, read_file]\n  non_interactive_approvals: allow\n";
        herald = InProcessHerald.in(home).start(yaml);
        post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
        post("/admin/api/users/create", "{\"name\":\"bob\",\"role\":\"user\",\"password\":\"bob's password\"}");
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    private HttpResponse<String> post(String path, String json) throws Exception {
        return browser.send(HttpRequest.newBuilder(herald.uri(path)).header("Content-Type", "application/json")
                .header(WebAccess.CSRF_HEADER, "1").timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(json))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A key of {@code name}'s (made by the admin page's browser as that account: sign in, make the key). */
    private String keyOf(String name, String password) throws Exception {
        HttpClient page = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        HttpRequest.Builder b = HttpRequest.newBuilder().header("Content-Type", "application/json").header(WebAccess.CSRF_HEADER, "1");
        page.send(b.copy().uri(herald.uri("/auth/login"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"" + name + "\",\"password\":\"" + password + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        String made = page.send(b.copy().uri(herald.uri("/chat/api/keys/create"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"label\":\"t\"}")).build(), HttpResponse.BodyHandlers.ofString()).body();
        return HeraldProcess.JSON.readTree(made).path("key").asText();
    }

    private String chat(String key, String text) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(herald.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + key).header("X-Herald-Session-Id", "s")
                .timeout(Duration.ofSeconds(40)).POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":"
                        + HeraldProcess.JSON.writeValueAsString(text) + "}]}")).build();
        return HeraldProcess.answer(HttpClient.newHttpClient().send(r, HttpResponse.BodyHandlers.ofString()));
    }

    @Test
    void aUserAccount_isNotOfferedShell_andItsDangerousCallsAreDenied_whileAnAdminsAreNot() throws Exception {
        start("");
        String bob = keyOf("bob", "bob's password");
        String ann = keyOf("ann", "ann's long password");

        chat(bob, "hello");
        assertThat(model.lastRequest().toolNames()).containsExactly("read_file");
        Path secret = Files.writeString(home.resolve("config-copy.txt"), "outside the conversation's folder");
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("c1", "read_file", "{\"path\":\"" + secret + "\"}")), Reply.text("done"));
        assertThat(chat(bob, "read it")).isEqualTo("done");
        assertThat(model.lastRequest().messages().getLast().content()).startsWith("Denied: this user may not approve dangerous tools");

        chat(ann, "hello");
        assertThat(model.lastRequest().toolNames()).containsExactlyInAnyOrder("shell", "read_file");
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("c2", "read_file", "{\"path\":\"" + secret + "\"}")), Reply.text("done"));
        chat(ann, "read it");
        assertThat(model.lastRequest().messages().getLast().content()).contains("outside the conversation's folder");
    }

    @Test
    void userApprovalsOn_givesUsersTheirToolsBack() throws Exception {
        start("  webchat:\n    user_approvals: true\n");
        chat(keyOf("bob", "bob's password"), "hello");
        assertThat(model.lastRequest().toolNames()).containsExactlyInAnyOrder("shell", "read_file");
    }
}
