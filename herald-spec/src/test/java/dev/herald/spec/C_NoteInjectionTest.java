package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.transcript.TranscriptRow;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spec C: what the agent is told on the next turn, observed at the agent through the real gateway. */
class C_NoteInjectionTest {
    static final String TOOL_TAIL = "[System note: A new message has arrived. The conversation history contains pending "
            + "tool outputs from an interrupted turn. IGNORE those pending results. Address the user's NEW message below "
            + "FIRST. Do NOT re-execute old tool calls from the history.]";

    @TempDir
    Path dir;
    Harness h;
    final SessionSource alice = Harness.dm("telegram", "123456", "u1");

    private void start(Duration window) {
        h = new Harness(dir).platform("telegram", true).platform("webhook", false).freshness(window);
        h.start();
    }

    @AfterEach
    void tearDown() {
        if (h != null) {
            h.close();
        }
    }

    @Test
    void C1_aFreshTranscriptMakesTheInterruptionFreshEvenWhenTheMarkIsOld() {
        start(Duration.ofHours(1));
        String sid = session(alice);
        h.storage.sessions().markResumePending(h.key(alice));
        h.clock.advance(Duration.ofHours(2));
        h.storage.transcripts().append(sid, TranscriptRow.assistant("working on it", h.clock.instant().minusSeconds(600)));

        assertThat(modelMessageFor(alice, "ping")).startsWith("[System note: The previous turn was interrupted by a gateway restart");
    }

    @Test
    void C1_aFreshMarkMakesTheResumeFreshEvenWhenTheTranscriptIsOld() {
        start(Duration.ofHours(1));
        String sid = session(alice);
        h.storage.transcripts().append(sid, TranscriptRow.assistant("working on it", h.clock.instant()));
        h.clock.advance(Duration.ofHours(2));
        h.storage.sessions().markResumePending(h.key(alice));

        assertThat(modelMessageFor(alice, "ping")).startsWith("[System note: The previous turn was interrupted by a gateway restart");
    }

    @Test
    void C2_aFreshResumePendingSessionWrapsTheMessageInTheRecoveryNote() {
        start(Duration.ofHours(1));
        String sid = session(alice);
        h.storage.transcripts().append(sid, TranscriptRow.user("build the site", h.clock.instant()));
        h.storage.transcripts().append(sid, TranscriptRow.assistant("on it", h.clock.instant()));
        h.storage.sessions().markResumePending(h.key(alice));

        String m = modelMessageFor(alice, "ping");

        assertThat(m).startsWith("[System note:")
                .contains("gateway restart", "back online", "NEW message", "Do NOT re-execute", "do NOT re-execute or verify")
                .endsWith("]\n\nping");
        assertThat(m.split("\\[System note:", -1)).hasSize(2);
        assertThat(lastUserRow(sid)).as("the user's own text is what is stored").isEqualTo("ping");
    }

    @Test
    void C2_theNoteNamesTheReasonOfTheMark() {
        start(Duration.ofHours(1));
        session(alice);
        h.storage.sessions().markResumePending(h.key(alice), ResumeReason.SHUTDOWN_TIMEOUT);

        assertThat(modelMessageFor(alice, "ping")).contains("interrupted by a gateway shutdown").doesNotContain("gateway restart;");
    }

    @Test
    void C3_aFreshToolTailGetsTheExactToolTailNote() {
        start(Duration.ofHours(1));
        String sid = session(alice);
        seedToolTail(sid, h.clock.instant().minusSeconds(60));

        assertThat(modelMessageFor(alice, "what now?")).isEqualTo(TOOL_TAIL + "\n\nwhat now?");
    }

    @Test
    void C4_staleInterruptionLeavesTheMessageUnchanged() {
        start(Duration.ofHours(1));
        SessionSource bob = Harness.dm("telegram", "42", "u1");
        String pendingSid = session(alice);
        h.storage.transcripts().append(pendingSid, TranscriptRow.assistant("old work", h.clock.instant()));
        h.storage.sessions().markResumePending(h.key(alice));
        seedToolTail(session(bob), h.clock.instant());
        h.clock.advance(Duration.ofHours(3));

        assertThat(modelMessageFor(alice, "hello again")).isEqualTo("hello again");
        assertThat(modelMessageFor(bob, "hello again")).isEqualTo("hello again");
    }

    @Test
    void C5_staleToolTailIsJudgedByRawTimestampsAndAgentHistoryCarriesNone() {
        start(Duration.ofHours(1));
        String sid = session(alice);
        seedToolTail(sid, h.clock.instant());
        h.clock.advance(Duration.ofHours(2));

        String m = modelMessageFor(alice, "new topic");
        TurnRequest req = h.agent.calls().get(h.agent.calls().size() - 1);

        assertThat(m).isEqualTo("new topic");
        assertThat(req.history()).extracting(ChatMessage::role).endsWith(Role.TOOL);
        assertThat(Arrays.stream(ChatMessage.class.getRecordComponents()).map(c -> c.getName()))
                .doesNotContain("timestamp", "seq");
    }

    @Test
    void C6_aWindowOfZeroDisablesTheGate() {
        start(Duration.ZERO);
        SessionSource bob = Harness.dm("telegram", "42", "u1");
        String sid = session(alice);
        h.storage.transcripts().append(sid, TranscriptRow.assistant("old work", h.clock.instant()));
        h.storage.sessions().markResumePending(h.key(alice));
        seedToolTail(session(bob), h.clock.instant());
        h.clock.advance(Duration.ofDays(30));

        assertThat(modelMessageFor(alice, "hi")).startsWith("[System note: The previous turn was interrupted");
        assertThat(modelMessageFor(bob, "hi")).isEqualTo(TOOL_TAIL + "\n\nhi");
    }

    @Test
    void C7_rowsWithoutTimestampsCountAsFresh() {
        start(Duration.ofHours(1));
        String sid = session(alice);
        seedToolTail(sid, null);
        h.clock.advance(Duration.ofDays(7));

        assertThat(modelMessageFor(alice, "and now?")).isEqualTo(TOOL_TAIL + "\n\nand now?");
    }

    @Test
    void C8_aBlankMessageOnAResumePendingSessionBecomesTheEmptyRecoveryNote() {
        start(Duration.ofHours(1));
        session(alice);
        h.storage.sessions().markResumePending(h.key(alice));

        String m = modelMessageFor(alice, "   ");

        assertThat(m).isNotBlank().startsWith("[System note:").endsWith("]")
                .contains("restored successfully", "ask what they would like to do next").doesNotContain("NEW message");
    }

    @Test
    void C9_nonInteractivePlatformsAreToldToContinueTheInterruptedTask() {
        start(Duration.ofHours(1));
        SessionSource hook = Harness.dm("webhook", "route-1", "u1");
        session(hook);
        h.storage.sessions().markResumePending(h.key(hook));

        String m = modelMessageFor(hook, "");

        assertThat(m).contains("CONTINUE the interrupted task", "already appear in the history")
                .doesNotContain("session was restored", "ask what they would like to do next", "skip any unfinished work");
    }

    private String session(SessionSource s) {
        return h.storage.sessions().getOrCreate(h.key(s), s).sessionId();
    }

    private void seedToolTail(String sid, Instant at) {
        h.storage.transcripts().append(sid, new TranscriptRow(0, Role.USER, "run the tests", List.of(), null, null, at));
        h.storage.transcripts().append(sid, new TranscriptRow(0, Role.ASSISTANT, null,
                List.of(new ToolCall("call_1", "shell", "{\"cmd\":\"make test\"}")), null, null, at));
        h.storage.transcripts().append(sid, new TranscriptRow(0, Role.TOOL, "42 passed", List.of(), "call_1", "shell", at));
    }

    private String modelMessageFor(SessionSource s, String text) {
        int before = h.agent.calls().size();
        h.loopback(s.platform().id()).say(s, text);
        List<TurnRequest> calls = h.agent.awaitCalls(before + 1, Harness.WAIT);
        awaitIdle(h.key(s));
        return calls.get(before).userMessage();
    }

    private void awaitIdle(SessionKey key) {
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while (h.gateway.status().claimedLanes() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    private String lastUserRow(String sid) {
        List<TranscriptRow> rows = h.storage.transcripts().load(sid);
        return rows.stream().filter(r -> r.role() == Role.USER).reduce((a, b) -> b).orElseThrow().content();
    }
}
