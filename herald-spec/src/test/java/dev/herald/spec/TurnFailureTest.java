package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A turn that fails after it started ends FAILED with its error recorded and an apology to the chat, and
 * the session's next message runs; a turn left RUNNING with nothing running it is ended by the watchdog (or
 * by the lane's next turn) instead of blocking the session until a restart.
 */
class TurnFailureTest extends GatewaySpec {
    static final String APOLOGY = "Sorry, something went wrong on my side while answering. Try again, or send /reset to start "
            + "a fresh session.";

    private TurnRecord turnOf(String text) {
        return h.storage.turns().inState(TurnState.FAILED, 10).stream().filter(t -> t.text().equals(text)).findFirst()
                .or(() -> h.storage.turns().inState(TurnState.INTERRUPTED, 10).stream().filter(t -> t.text().equals(text)).findFirst())
                .orElseThrow(() -> new AssertionError("no failed or interrupted turn for " + text));
    }

    @Test
    void aFailureAfterStart_endsTheTurnFailed_apologizes_andTheNextMessageIsAnswered() {
        h = new Harness(dir).platform("telegram", true);
        h.start();

        try (CrashPoints.Injection ignored = CrashPoints.failAt(CrashPoints.BEFORE_AGENT, 1)) {
            h.loopback("telegram").say(alice, "first");
            h.loopback("telegram").awaitSent(APOLOGY::equals, Harness.WAIT);
        }
        h.loopback("telegram").say(alice, "second");

        h.loopback("telegram").awaitSent("echo: second"::equals, Harness.WAIT);
        TurnRecord failed = turnOf("first");
        assertThat(failed.state()).isEqualTo(TurnState.FAILED);
        assertThat(failed.error()).isEqualTo("InjectedFailure: injected failure at crash point turn.before-agent");
        assertThat(h.agent.messages()).as("the failed turn never reached the model").containsExactly("second");
        assertThat(h.loopback("telegram").sentMatching(APOLOGY::equals)).singleElement()
                .satisfies(s -> assertThat(s.message().kind()).isEqualTo(MessageKind.ERROR));
    }

    @Test
    void aFailureAfterTheAgentAnswered_beforeItsReplyIsRecorded_endsFailed_andTheLaneGoesOn() {
        h = new Harness(dir).platform("telegram", true);
        h.start();

        try (CrashPoints.Injection ignored = CrashPoints.failAt(CrashPoints.BEFORE_RECORD, 1)) {
            h.loopback("telegram").say(alice, "first");
            h.loopback("telegram").awaitSent(APOLOGY::equals, Harness.WAIT);
        }
        h.loopback("telegram").say(alice, "second");

        h.loopback("telegram").awaitSent("echo: second"::equals, Harness.WAIT);
        assertThat(turnOf("first").state()).isEqualTo(TurnState.FAILED);
        assertThat(h.loopback("telegram").sentMatching("echo: first"::equals)).as("its answer was never recorded, so never sent")
                .isEmpty();
        assertThat(h.entry(alice).resumePending()).isFalse();
    }

    /** A turn RUNNING in the store that no lane of the running gateway runs: as if its failure could not be recorded. */
    private TurnRecord orphan(String text) {
        SessionEntry lane = h.storage.sessions().getOrCreate(h.key(alice), alice);
        Turns turns = new Turns(h.storage.turns());
        TurnRecord t = turns.receive(lane.key(), MessageEvent.text(alice, text, null, h.clock.instant())).orElseThrow();
        return turns.start(t.id(), lane.sessionId(), TranscriptRow.user(text, h.clock.instant())).orElseThrow();
    }

    @Test
    void aTurnRunningWithoutALiveLane_isEndedByTheWatchdogAfterItsGrace_andResumedByTheNextMessage() {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withWatchdog(Duration.ofMillis(50), Duration.ofMinutes(1));
        h.start();
        TurnRecord orphan = orphan("lost work");

        await().during(Duration.ofMillis(300)).atMost(Harness.WAIT)
                .until(() -> h.storage.turns().find(orphan.id()).orElseThrow().state() == TurnState.RUNNING);
        h.clock.advance(Duration.ofMinutes(2));

        await().atMost(Harness.WAIT).until(() -> h.storage.turns().find(orphan.id()).orElseThrow().state() == TurnState.INTERRUPTED);
        SessionEntry lane = h.entry(alice);
        assertThat(lane.resumePending()).as("a fresh interruption is resumable").isTrue();
        assertThat(lane.resumeReason()).isEqualTo(ResumeReason.RESTART_INTERRUPTED);
        assertThat(lane.interruptedRestarts()).isEqualTo(1);

        h.loopback("telegram").say(alice, "are you there?");

        h.agent.awaitCalls(1, Harness.WAIT);
        assertThat(h.agent.messages()).singleElement().satisfies(m -> assertThat(m)
                .startsWith("[System note: The previous turn was interrupted by a gateway interruption").endsWith("are you there?"));
    }

    @Test
    void aTurnRunningWithoutALiveLane_isEndedAtOnceWhenTheLanesNextTurnNeedsTheLane() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        TurnRecord orphan = orphan("lost work");

        h.loopback("telegram").say(alice, "hello");

        h.loopback("telegram").awaitSent(t -> t.startsWith("echo:"), Harness.WAIT);
        assertThat(h.storage.turns().find(orphan.id()).orElseThrow().state()).isEqualTo(TurnState.INTERRUPTED);
        assertThat(h.agent.messages()).singleElement().satisfies(m -> assertThat(m).endsWith("hello"));
        assertThat(h.entry(alice).resumePending()).as("the answered turn cleared the mark").isFalse();
    }
}
