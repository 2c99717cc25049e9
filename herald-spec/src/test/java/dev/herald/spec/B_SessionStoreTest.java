package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.continuity.Freshness;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ResetReason;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spec B: the session store, on a real SQLite file. */
class B_SessionStoreTest {
    @TempDir
    Path dir;
    Harness h;
    final SessionSource alice = Harness.dm("telegram", "123456", "u1");

    @BeforeEach
    void setUp() {
        h = new Harness(dir).platform("telegram", true);
    }

    @AfterEach
    void tearDown() {
        h.close();
    }

    @Test
    void B1_aNewEntryIsNotResumePendingAndHasNoReasonOrMarkTime() {
        SessionEntry e = h.storage.sessions().getOrCreate(h.key(alice), alice);

        assertThat(e.resumePending()).isFalse();
        assertThat(e.resumeReason()).isNull();
        assertThat(e.lastResumeMarkedAt()).isNull();
        assertThat(e.suspended()).isFalse();
    }

    @Test
    void B2_markingSetsFlagDefaultReasonAndTimeAndSurvivesARestart() {
        SessionKey key = h.key(alice);
        h.storage.sessions().getOrCreate(key, alice);
        h.clock.advance(Duration.ofMinutes(5));

        assertThat(h.storage.sessions().markResumePending(key)).isTrue();

        h.restart();
        SessionEntry e = h.entry(alice);
        assertThat(e.resumePending()).isTrue();
        assertThat(e.resumeReason()).isEqualTo(ResumeReason.RESTART_TIMEOUT);
        assertThat(e.lastResumeMarkedAt()).isEqualTo(h.clock.instant());
    }

    @Test
    void B2_markingWithAGivenReasonKeepsThatReason() {
        SessionKey key = h.key(alice);
        h.storage.sessions().getOrCreate(key, alice);

        assertThat(h.storage.sessions().markResumePending(key, ResumeReason.SHUTDOWN_TIMEOUT)).isTrue();

        h.restart();
        assertThat(h.entry(alice).resumeReason()).isEqualTo(ResumeReason.SHUTDOWN_TIMEOUT);
    }

    @Test
    void B2_markingAnUnknownKeyReturnsFalse() {
        assertThat(h.storage.sessions().markResumePending(new SessionKey("agent:main:telegram:dm:nobody"))).isFalse();
    }

    @Test
    void B3_clearingReturnsFalseWhenNotPendingAndTrueWhenItClearedAMark() {
        SessionKey key = h.key(alice);
        h.storage.sessions().getOrCreate(key, alice);

        assertThat(h.storage.sessions().clearResumePending(key)).isFalse();
        h.storage.sessions().markResumePending(key);
        assertThat(h.storage.sessions().clearResumePending(key)).isTrue();

        SessionEntry e = h.entry(alice);
        assertThat(e.resumePending()).isFalse();
        assertThat(e.resumeReason()).isNull();
        assertThat(e.lastResumeMarkedAt()).isNull();
        assertThat(h.storage.sessions().clearResumePending(key)).isFalse();
    }

    @Test
    void B4_aResumePendingSessionFollowsTheCompressionTipAndStaysPending() {
        SessionKey key = h.key(alice);
        String root = h.storage.sessions().getOrCreate(key, alice).sessionId();
        h.storage.transcripts().append(root, TranscriptRow.user("long conversation", h.clock.instant()));
        h.storage.sessions().markResumePending(key, ResumeReason.RESTART_TIMEOUT);
        h.clock.advance(Duration.ofSeconds(1));
        h.storage.transcripts().continueInChild(root, "child-session", h.clock.instant());
        h.clock.advance(Duration.ofSeconds(1));
        h.storage.transcripts().continueInChild("child-session", "grandchild-session", h.clock.instant());

        SessionEntry e = h.storage.sessions().getOrCreate(key, alice);

        assertThat(e.sessionId()).isEqualTo("grandchild-session");
        assertThat(e.resumePending()).isTrue();
        assertThat(e.resumeReason()).isEqualTo(ResumeReason.RESTART_TIMEOUT);
        assertThat(h.entry(alice).sessionId()).as("the stored mapping is healed, not pinned to the root").isEqualTo("grandchild-session");
    }

    @Test
    void B5_theUncleanStopSweepSkipsResumePendingEntries() {
        SessionSource bob = Harness.dm("telegram", "777", "u1");
        SessionKey pendingKey = h.key(alice);
        SessionKey activeKey = h.key(bob);
        runningTurn(alice);
        runningTurn(bob);
        h.storage.sessions().markResumePending(pendingKey, ResumeReason.SHUTDOWN_TIMEOUT);

        Turns turns = new Turns(h.storage.turns());
        List<SessionKey> marked = new OrphanedTurns(turns, Freshness.defaults(), h.clock).end(turns.running(), "start-up sweep").marked();

        assertThat(marked).containsExactly(activeKey);
        SessionEntry pending = h.entry(alice);
        assertThat(pending.resumePending()).isTrue();
        assertThat(pending.suspended()).isFalse();
        assertThat(pending.resumeReason()).as("keeps its own reason").isEqualTo(ResumeReason.SHUTDOWN_TIMEOUT);
        assertThat(h.entry(bob).resumeReason()).isEqualTo(ResumeReason.RESTART_INTERRUPTED);
    }

    @Test
    void B6_suspendedWinsOverResumePending() {
        SessionKey key = h.key(alice);
        String old = h.storage.sessions().getOrCreate(key, alice).sessionId();
        h.storage.sessions().markResumePending(key);
        h.storage.sessions().suspend(key, SuspendReason.OPERATOR);
        assertThat(h.entry(alice).resumePending()).as("still marked").isTrue();

        SessionEntry next = h.storage.sessions().getOrCreate(key, alice);

        assertThat(next.sessionId()).isNotEqualTo(old);
        assertThat(next.wasAutoReset()).isTrue();
        assertThat(next.autoResetReason()).isEqualTo(ResetReason.SUSPENDED);
        assertThat(next.resumePending()).isFalse();
        assertThat(next.suspended()).isFalse();
    }

    /** A turn admitted and started, as if the process died while it ran. */
    private void runningTurn(SessionSource s) {
        SessionKey key = h.key(s);
        SessionEntry e = h.storage.sessions().getOrCreate(key, s);
        TurnRecord t = h.storage.turns().receive(key, MessageEvent.text(s, "work", null, h.clock.instant())).orElseThrow();
        new Turns(h.storage.turns()).start(t.id(), e.sessionId(), TranscriptRow.user("work", h.clock.instant())).orElseThrow();
    }
}
