package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionKey;
import dev.herald.testkit.agent.ScriptedAgent;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The admin's Purge over HTTP against a real gateway and SQLite store: gone for good, or refused with the reason. */
class AdminPurgeTest {
    @TempDir
    Path dir;

    @Test
    void purge_finishedConversation_isGoneFromTheAdminListWebChatAndExport_andTheOtherStays() {
        Logger admin = (Logger) LoggerFactory.getLogger("dev.herald.web.admin");
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        admin.addAppender(logs);
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-gone", "m-g-0001", "my secret plans");
            fx.chat("conv-kept", "m-k-0001", "shopping list");
            fx.awaitReply("conv-gone", "echo: my secret plans");
            fx.awaitReply("conv-kept", "echo: shopping list");
            fx.awaitIdle();
            SessionKey gone = fx.key("conv-gone");

            HttpResponse<String> purged = fx.post("/admin/api/sessions/purge", body(gone));

            assertThat(purged.statusCode()).isEqualTo(200);
            JsonNode out = WebUiFixture.json(purged);
            assertThat(out.path("done").asBoolean()).isTrue();
            assertThat(out.path("messages").asLong()).isEqualTo(2);
            assertThat(out.path("turns").asLong()).isEqualTo(1);
            assertThat(WebUiFixture.json(fx.get("/admin/api/sessions?state=all")).path("sessions"))
                    .extracting(s -> s.path("chatId").asText()).containsExactly("conv-kept");
            assertThat(WebUiFixture.json(fx.get("/chat/api/conversations")).path("conversations"))
                    .extracting(c -> c.path("id").asText()).containsExactly("conv-kept");
            assertThat(WebUiFixture.json(fx.get("/chat/api/transcript?c=conv-gone")).path("rows")).isEmpty();
            assertThat(fx.get("/admin/api/export?key=" + gone.value()).statusCode()).isEqualTo(404);
            assertThat(fx.get("/admin/api/export?key=" + fx.key("conv-kept").value()).body()).contains("shopping list");
            assertThat(fx.post("/admin/api/sessions/purge", body(gone)).statusCode()).as("purged before").isEqualTo(404);
            assertThat(logs.list).filteredOn(e -> e.getLevel() == Level.INFO && e.getFormattedMessage().contains("purged "))
                    .singleElement().satisfies(e -> assertThat(e.getFormattedMessage())
                            .contains(gone.value(), "1 transcript(s), 2 message(s), 1 turn(s)").doesNotContain("secret"));
        } finally {
            admin.detachAppender(logs);
        }
    }

    @Test
    void purge_whileATurnRuns_answers409WithTheReasonAndKeepsTheTranscript_thenPurgesOnceItEnded() {
        ScriptedAgent agent = new ScriptedAgent();
        ScriptedAgent.Hold hold = agent.hold("finished now");
        try (WebUiFixture fx = WebUiFixture.start(dir, agent)) {
            fx.chat("conv-busy", "m-b-0001", "long job");
            hold.awaitArrival(Duration.ofSeconds(10));
            SessionKey key = fx.key("conv-busy");

            HttpResponse<String> refused = fx.post("/admin/api/sessions/purge", body(key));

            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(WebUiFixture.json(refused).path("message").asText()).contains("1 turn(s) not finished", "RUNNING", "then purge again");
            hold.release();
            fx.awaitReply("conv-busy", "finished now");
            fx.awaitIdle();
            assertThat(fx.post("/admin/api/sessions/purge", body(key)).statusCode()).isEqualTo(200);
            assertThat(fx.storage.sessions().find(key)).isEmpty();
        }
    }

    @Test
    void purge_resumePending_answers409UntilTheMarkIsCleared() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-mark", "m-m-0001", "hello");
            fx.awaitReply("conv-mark", "echo: hello");
            fx.awaitIdle();
            SessionKey key = fx.key("conv-mark");
            fx.storage.sessions().markResumePending(key, ResumeReason.RESTART_TIMEOUT);

            HttpResponse<String> refused = fx.post("/admin/api/sessions/purge", body(key));

            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(WebUiFixture.json(refused).path("message").asText()).contains("resume-pending", "clear its resume mark");
            assertThat(fx.post("/admin/api/sessions/clear-resume", body(key)).statusCode()).isEqualTo(200);
            assertThat(fx.post("/admin/api/sessions/purge", body(key)).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void purge_badRequests_areRefusedAndChangeNothing() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-safe", "m-s-0001", "hello");
            fx.awaitReply("conv-safe", "echo: hello");
            fx.awaitIdle();
            SessionKey key = fx.key("conv-safe");

            assertThat(fx.post("/admin/api/sessions/purge", "{}").statusCode()).isEqualTo(400);
            assertThat(fx.post("/admin/api/sessions/purge", "{\"key\":\"agent:main:webchat:dm:nobody\"}").statusCode()).isEqualTo(404);
            assertThat(fx.post("/admin/api/sessions/purge", body(key), "X-Nothing", "1").statusCode())
                    .as("a write without the page's anti-CSRF header").isEqualTo(403);
            assertThat(fx.storage.sessions().find(key)).isPresent();
        }
    }

    private static String body(SessionKey key) {
        return "{\"key\":\"" + key.value() + "\"}";
    }
}
