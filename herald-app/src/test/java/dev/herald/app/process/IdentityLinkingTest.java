package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import dev.herald.web.access.WebAccess;
import java.net.CookieManager;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Linking a chat identity to a web account, through the real wiring (configuration, SQLite, gateway, agent, the API and
 * the web pages on loopback) and a scripted model. The chat side is an API user without an account (its user id comes
 * from {@code X-Herald-User}, as a Telegram user's comes from Telegram): {@code /link} there gives a one-time code, the
 * signed-in account enters it in the pages, and from then on a fact the agent remembers in that chat is the account's,
 * seen by the account's own API key; {@code /link remove} gives the chat its own memory back. Another account neither
 * sees nor removes the link, and wrong codes are refused, then throttled.
 */
class IdentityLinkingTest {
    static final Pattern CODE = Pattern.compile("Your link code: ([A-Z0-9]{4}-[A-Z0-9]{4})");

    @TempDir
    Path home;
    final FakeModelServer model = FakeModelServer.start().defaultReply(r -> Reply.text("ok"));
    InProcessHerald herald;

    /** A browser of its own (its own cookies). */
    final class Browser {
        final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).connectTimeout(Duration.ofSeconds(5)).build();

        HttpResponse<String> get(String path) throws Exception {
            return http.send(HttpRequest.newBuilder(herald.uri(path)).timeout(Duration.ofSeconds(20)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String path, String json) throws Exception {
            return http.send(HttpRequest.newBuilder(herald.uri(path)).header("Content-Type", "application/json")
                    .header(WebAccess.CSRF_HEADER, "1").timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(json))
                    .build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private void start() throws Exception {
        String yaml = "model:\n  base_url: " + model.baseUrl() + "\n  name: test-model\n  connect_timeout_seconds: 2\n"
                + "  idle_timeout_seconds: 10\n  max_retries: 0\n"
                + "platforms:\n  api_server:\n    port: {port}\n    request_timeout_seconds: 30\n"
                + "agent:\n  tools: [memory]\n"
                + "personalities:\n  pirate:\n    system_prompt: Talk like a pirate.\n";
        herald = InProcessHerald.in(home).start(yaml);
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    /** One message in a durable API session, as {@code user} (X-Herald-User) or with {@code key} (Bearer). */
    private String chat(String text, String session, String user, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(herald.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json").header("X-Herald-Session-Id", session).timeout(Duration.ofSeconds(40))
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":"
                        + HeraldProcess.JSON.writeValueAsString(text) + "}]}"));
        if (user != null) {
            b.header("X-Herald-User", user);
        }
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return HeraldProcess.answer(HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString()));
    }

    private String system() {
        return model.lastRequest().messages().stream().filter(m -> m.role().equals("system")).map(RecordedRequest.Message::content)
                .findFirst().orElse("");
    }

    private static String codeIn(String reply) {
        Matcher m = CODE.matcher(reply);
        assertThat(m.find()).as(reply).isTrue();
        return m.group(1);
    }

    @Test
    void aLinkedChat_sharesTheAccountsMemory_untilUnlinked_andOnlyItsAccountSeesOrRemovesTheLink() throws Exception {
        start();
        Browser ann = new Browser();
        assertThat(ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}").statusCode()).isEqualTo(200);
        assertThat(ann.post("/admin/api/users/create", "{\"name\":\"bob\",\"role\":\"user\",\"password\":\"bob's password\"}")
                .statusCode()).isEqualTo(200);
        String annKey = HeraldProcess.JSON.readTree(ann.post("/chat/api/keys/create", "{\"label\":\"laptop\"}").body()).path("key").asText();
        Browser bob = new Browser();
        assertThat(bob.post("/auth/login", "{\"name\":\"bob\",\"password\":\"bob's password\"}").statusCode()).isEqualTo(200);

        // the chat side asks for a code; a wrong code is refused, the right one links the chat to ann
        String reply = chat("/link", "phone", "alice", null);
        String code = codeIn(reply);
        assertThat(reply).contains("within 10 minutes");
        HttpResponse<String> wrong = ann.post("/chat/api/links/add", "{\"code\":\"AAAA-AAAA\"}");
        assertThat(wrong.statusCode()).isEqualTo(400);
        assertThat(wrong.body()).contains("not valid");
        HttpResponse<String> linked = ann.post("/chat/api/links/add", "{\"code\":\"" + code.toLowerCase() + "\"}");
        assertThat(linked.statusCode()).as(linked.body()).isEqualTo(200);
        assertThat(linked.body()).contains("api_server:alice");
        assertThat(ann.post("/chat/api/links/add", "{\"code\":\"" + code + "\"}").statusCode()).as("a code works once").isEqualTo(400);
        assertThat(chat("/link status", "phone", "alice", null)).contains("linked to the Herald account 'ann'");

        JsonNode annLinks = HeraldProcess.JSON.readTree(ann.get("/chat/api/links").body()).path("links");
        assertThat(annLinks).hasSize(1);
        assertThat(annLinks.path(0).path("identity").asText()).isEqualTo("api_server:alice");
        assertThat(HeraldProcess.JSON.readTree(bob.get("/chat/api/links").body()).path("links")).isEmpty();
        assertThat(bob.post("/chat/api/links/remove", "{\"identity\":\"api_server:alice\"}").statusCode())
                .as("bob removing ann's link").isEqualTo(404);
        assertThat(bob.get("/admin/api/links").statusCode()).isEqualTo(403);

        // a fact remembered in the linked chat is ann's: her own API key's next session has it, bob's does not
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("c1", "memory", "{\"action\":\"remember\",\"text\":\"Prefers green tea\"}")),
                Reply.text("Noted."));
        assertThat(chat("remember that I prefer green tea", "phone", "alice", null)).isEqualTo("Noted.");
        chat("what should I drink?", "desk", null, annKey);
        assertThat(system()).contains("\n- Prefers green tea (");
        chat("what should I drink?", "other", "carol", null);
        assertThat(system()).doesNotContain("tea");

        // usage: the chat's own line, and the day over all of ann's chats (the linked chat's turn and her key's)
        String usage = chat("/usage", "phone", "alice", null);
        assertThat(usage).contains("your messages in this chat: ").contains("over 1 turn\n");
        assertThat(usage).contains("all your chats as ann: ").endsWith("over 2 turns");
        assertThat(chat("/usage", "other", "carol", null)).doesNotContain("all your chats");

        // a persona ann picks over her key is hers in the linked chat too, where the chat chose none; not carol's
        assertThat(chat("/personality pirate", "desk", null, annKey)).contains("and for your other chats that chose none");
        chat("ahoy?", "phone-3", "alice", null);
        assertThat(system()).contains("Talk like a pirate.");
        chat("ahoy?", "other-2", "carol", null);
        assertThat(system()).doesNotContain("pirate");

        // unlinked from the chat: the chat has its own (empty) memory again; ann keeps hers
        assertThat(chat("/link remove", "phone", "alice", null)).startsWith("Unlinked");
        chat("what should I drink?", "phone-2", "alice", null);
        assertThat(system()).doesNotContain("tea").doesNotContain("pirate");
        chat("what should I drink?", "desk-2", null, annKey);
        assertThat(system()).contains("Prefers green tea");
        assertThat(HeraldProcess.JSON.readTree(ann.get("/chat/api/links").body()).path("links")).isEmpty();
    }

    @Test
    void wrongCodes_areThrottledPerAccount_andTheWebUserIsToldLinkIsForOtherChats() throws Exception {
        start();
        Browser ann = new Browser();
        ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
        int status = 0;
        for (int i = 0; i < 12 && status != 429; i++) {
            status = ann.post("/chat/api/links/add", "{\"code\":\"BBBB-BB" + (char) ('A' + i) + "B\"}").statusCode();
        }
        assertThat(status).isEqualTo(429);
        String code = codeIn(chat("/link", "phone", "alice", null));
        assertThat(ann.post("/chat/api/links/add", "{\"code\":\"" + code + "\"}").statusCode()).as("even the right code, while throttled")
                .isEqualTo(429);
        assertThat(chat("/link", "s", null, HeraldProcess.JSON.readTree(ann.post("/chat/api/keys/create", "{\"label\":\"k\"}").body())
                .path("key").asText())).contains("signed in to your Herald account here already");
    }
}
