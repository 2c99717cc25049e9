package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionKey;
import dev.herald.testkit.agent.ScriptedAgent;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin JSON API over HTTP against a real gateway and store: status, session filters, transcript, actions. */
class AdminApiTest {
    @TempDir
    Path dir;

    @Test
    void status_showsRunningGatewayPlatformsAndFigures() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-status", "m-status-1", "hello");
            fx.awaitReply("conv-status", "echo: hello");
            fx.awaitIdle();
            JsonNode s = WebUiFixture.json(fx.get("/admin/api/status"));
            assertThat(s.path("state").asText()).isEqualTo("running");
            assertThat(s.path("uptimeSeconds").asLong()).isGreaterThanOrEqualTo(0);
            assertThat(s.path("platforms").path(0).path("id").asText()).isEqualTo("webchat");
            assertThat(s.path("platforms").path(0).path("state").asText()).isEqualTo("connected");
            JsonNode f = s.path("figures");
            assertThat(f.path("turnsPerMinute").asInt()).isEqualTo(1);
            assertThat(f.path("activeTurns").asInt()).isZero();
            assertThat(f.path("waitingTurns").asInt()).isZero();
            assertThat(f.path("sessionsStored").asLong()).isEqualTo(1);
            assertThat(f.path("undeliveredReplies").isIntegralNumber()).isTrue();
            assertThat(f.path("undeliveredReplies").asLong()).isZero();
        }
    }

    @Test
    void sessions_filteredByState_resumePendingWithReasonAndAge_clearedByTheAction() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-aaaa", "m-a-0001", "first");
            fx.chat("conv-bbbb", "m-b-0001", "second");
            fx.awaitReply("conv-aaaa", "echo: first");
            fx.awaitReply("conv-bbbb", "echo: second");
            SessionKey a = fx.key("conv-aaaa");
            fx.storage.sessions().markResumePending(a, ResumeReason.SHUTDOWN_TIMEOUT);

            JsonNode pending = WebUiFixture.json(fx.get("/admin/api/sessions?state=resume_pending"));
            assertThat(pending.path("sessions")).hasSize(1);
            JsonNode item = pending.path("sessions").path(0);
            assertThat(item.path("key").asText()).isEqualTo(a.value());
            assertThat(item.path("state").asText()).isEqualTo("resume_pending");
            assertThat(item.path("resumeReason").asText()).isEqualTo("shutdown_timeout");
            assertThat(item.path("resumeAgeSeconds").isNumber()).isTrue();
            assertThat(WebUiFixture.json(fx.get("/admin/api/sessions?state=all")).path("sessions")).hasSize(2);
            assertThat(WebUiFixture.json(fx.get("/admin/api/sessions?q=bbbb")).path("sessions").path(0).path("chatId").asText())
                    .isEqualTo("conv-bbbb");

            HttpResponse<String> cleared = fx.post("/admin/api/sessions/clear-resume", "{\"key\":\"" + a.value() + "\"}");
            assertThat(cleared.statusCode()).isEqualTo(200);
            assertThat(fx.storage.sessions().find(a).orElseThrow().resumePending()).isFalse();
            assertThat(fx.post("/admin/api/sessions/clear-resume", "{\"key\":\"" + a.value() + "\"}").statusCode())
                    .as("nothing left to clear").isEqualTo(409);
            assertThat(WebUiFixture.json(fx.get("/admin/api/sessions?state=resume_pending")).path("sessions")).isEmpty();
        }
    }

    @Test
    void suspend_listsUnderSuspendedWithItsReason_andTranscriptShowsTheRows() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-susp", "m-s-0001", "keep this");
            fx.awaitReply("conv-susp", "echo: keep this");
            SessionKey key = fx.key("conv-susp");
            JsonNode t = WebUiFixture.json(fx.get("/admin/api/transcript?key=" + key.value()));
            assertThat(t.path("rows")).extracting(r -> r.path("role").asText() + ":" + r.path("text").asText())
                    .containsExactly("user:keep this", "assistant:echo: keep this");

            assertThat(fx.post("/admin/api/sessions/suspend", "{\"key\":\"" + key.value() + "\"}").statusCode()).isEqualTo(200);
            JsonNode suspended = WebUiFixture.json(fx.get("/admin/api/sessions?state=suspended")).path("sessions");
            assertThat(suspended).hasSize(1);
            assertThat(suspended.path(0).path("suspendReason").asText()).isEqualTo("operator");
            assertThat(suspended.path(0).path("suspendDetail").asText()).isEqualTo("suspended by an operator");
            assertThat(suspended.path(0).path("suspendedAgeSeconds").isIntegralNumber()).isTrue();
            assertThat(fx.post("/admin/api/sessions/suspend", "{\"key\":\"agent:main:webchat:dm:nobody\"}").statusCode()).isEqualTo(404);
            assertThat(fx.post("/admin/api/sessions/suspend", "{}").statusCode()).isEqualTo(400);
        }
    }

    @Test
    void unsuspend_suspendedSession_continuesItsTranscript_andANotSuspendedOneAnswers409() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-unsusp", "m-u-0001", "before");
            fx.awaitReply("conv-unsusp", "echo: before");
            fx.awaitIdle();
            SessionKey key = fx.key("conv-unsusp");
            String session = fx.storage.sessions().find(key).orElseThrow().sessionId();
            String body = "{\"key\":\"" + key.value() + "\"}";
            assertThat(fx.post("/admin/api/sessions/unsuspend", body).statusCode()).as("not suspended").isEqualTo(409);
            fx.post("/admin/api/sessions/suspend", body);

            assertThat(fx.post("/admin/api/sessions/unsuspend", body).statusCode()).isEqualTo(200);
            fx.chat("conv-unsusp", "m-u-0002", "after");

            JsonNode t = fx.awaitReply("conv-unsusp", "echo: after");
            assertThat(t.path("sessionId").asText()).as("the same transcript goes on").isEqualTo(session);
            assertThat(t.path("rows")).extracting(r -> r.path("text").asText()).contains("before", "after");
        }
    }

    @Test
    void transcript_resumedTurnsNote_isASystemEventNotAUserMessage() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-event", "m-e-0001", "hello");
            fx.awaitReply("conv-event", "echo: hello");
            SessionKey key = fx.key("conv-event");
            fx.storage.transcripts().append(fx.storage.sessions().find(key).orElseThrow().sessionId(), dev.herald.core.transcript.TranscriptRow
                    .user(dev.herald.core.continuity.RecoveryNotes.resumeNote(null, "", true), java.time.Instant.now()));

            JsonNode rows = WebUiFixture.json(fx.get("/admin/api/transcript?key=" + key.value())).path("rows");

            assertThat(rows.path(0).path("event").isNull()).isTrue();
            assertThat(rows.path(2).path("event").asText()).isEqualTo("resumed");
        }
    }

    @Test
    void running_listsTheSessionWithAHeldTurn_resumeNow_runsOneResumeTurn() {
        ScriptedAgent agent = new ScriptedAgent();
        ScriptedAgent.Hold hold = agent.hold("done at last");
        try (WebUiFixture fx = WebUiFixture.start(dir, agent)) {
            fx.chat("conv-run1", "m-r-0001", "long job");
            hold.awaitArrival(Duration.ofSeconds(10));
            JsonNode running = WebUiFixture.json(fx.get("/admin/api/sessions?state=running")).path("sessions");
            assertThat(running).hasSize(1);
            assertThat(running.path(0).path("state").asText()).isEqualTo("running");
            assertThat(WebUiFixture.json(fx.get("/admin/api/status")).path("figures").path("activeTurns").asInt()).isEqualTo(1);
            hold.release();
            fx.awaitReply("conv-run1", "done at last");
            fx.awaitIdle();

            SessionKey key = fx.key("conv-run1");
            fx.storage.sessions().markResumePending(key, ResumeReason.RESTART_TIMEOUT);
            assertThat(fx.post("/admin/api/sessions/resume-now", "{\"key\":\"" + key.value() + "\"}").statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(10)).until(() -> agent.calls().size() == 2);
            assertThat(agent.calls().get(1).userMessage()).startsWith("[System note:");
            await().atMost(Duration.ofSeconds(10)).until(() -> !fx.storage.sessions().find(key).orElseThrow().resumePending());
        }
    }
}
