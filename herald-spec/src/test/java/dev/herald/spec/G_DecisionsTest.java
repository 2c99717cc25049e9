package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnState;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Spec G: Herald's decisions where the original is ambiguous. */
class G_DecisionsTest extends GatewaySpec {
    /** Leaves a turn running and abandons the process without a stop, as a crash or kill -9 would. */
    private void crashDuringTurn(SessionSource s) {
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("never delivered");
        h.loopback(s.platform().id()).say(s, "deploy the site");
        hold.awaitArrival(Harness.WAIT);
        h.restart();
    }

    @Test
    void G2_afterACrashAFreshInFlightTurnIsResumedAsRestartInterrupted() {
        h = new Harness(dir).platform("telegram", true);
        crashDuringTurn(alice);

        Gateway.StartReport report = h.start();
        h.agent.awaitCalls(1, Harness.WAIT);
        awaitIdle();

        assertThat(report.recovered()).containsExactly(h.key(alice));
        assertThat(h.agent.messages().get(0)).startsWith("[System note: The previous turn was interrupted by a gateway interruption");
        SessionEntry e = h.entry(alice);
        assertThat(e.resumePending()).isFalse();
        assertThat(h.storage.turns().inState(TurnState.INTERRUPTED, 10)).hasSize(1);
        List<TranscriptRow> rows = h.storage.transcripts().load(e.sessionId());
        assertThat(rows).filteredOn(r -> r.role() == Role.USER).extracting(TranscriptRow::content).first().isEqualTo("deploy the site");
    }

    @Test
    void G2_afterACrashAStaleInFlightTurnIsClosedWithoutAResume() {
        h = new Harness(dir).platform("telegram", true);
        crashDuringTurn(alice);
        h.clock.advance(Duration.ofHours(2));

        Gateway.StartReport report = h.start();

        assertThat(report.recovered()).isEmpty();
        assertThat(h.entry(alice).resumePending()).isFalse();
        assertThat(h.storage.turns().inState(TurnState.RUNNING, 10)).isEmpty();
        assertThat(h.agent.calls()).isEmpty();
    }

    @Test
    void G3_theStuckLoopCountAccumulatesAcrossRestartsAndASuccessClearsIt() {
        h = new Harness(dir).platform("telegram", true);
        crashDuringTurn(alice);
        ScriptedAgent.Hold resumed = h.agent.hold("never");
        h.startAsync();
        resumed.awaitArrival(Harness.WAIT);
        assertThat(h.entry(alice).interruptedRestarts()).as("counted by the crash sweep").isEqualTo(1);
        h.gateway.stop(StopKind.RESTART, false);
        assertThat(h.entry(alice).interruptedRestarts()).as("and by the stop").isEqualTo(2);

        h.restart();
        h.start();
        h.agent.awaitCalls(1, Harness.WAIT);
        awaitIdle();

        SessionEntry e = h.entry(alice);
        assertThat(e.interruptedRestarts()).as("cleared by the successful resume").isZero();
        assertThat(e.suspended()).isFalse();
    }

    @Test
    void G4_aWindowOfZeroResumesEvenOldMarksAtStartup() {
        h = new Harness(dir).platform("telegram", true).freshness(Duration.ZERO);
        h.start();
        h.storage.sessions().getOrCreate(h.key(alice), alice);
        h.storage.sessions().markResumePending(h.key(alice));
        h.gateway.stop(StopKind.SHUTDOWN, false);
        h.clock.advance(Duration.ofDays(10));
        h.restart();

        h.start();

        h.agent.awaitCalls(1, Harness.WAIT);
        assertThat(h.agent.messages().get(0)).startsWith("[System note:");
    }

    @Test
    void G4_anOldMarkIsNotResumedAtStartupWithinAWindow() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        h.storage.sessions().getOrCreate(h.key(alice), alice);
        h.storage.sessions().markResumePending(h.key(alice));
        h.gateway.stop(StopKind.SHUTDOWN, false);
        h.clock.advance(Duration.ofHours(2));
        h.restart();

        h.start();

        assertThat(h.agent.calls()).isEmpty();
        assertThat(h.entry(alice).resumePending()).as("left for the user's next message").isTrue();
    }

    @Test
    void G5_onlyTheGatewaysOwnReasonsAreAutoResumed() {
        h = new Harness(dir).platform("telegram", true);
        SessionSource bob = Harness.dm("telegram", "42", "u1");
        h.start();
        h.storage.sessions().getOrCreate(h.key(alice), alice);
        h.storage.sessions().getOrCreate(h.key(bob), bob);
        h.storage.sessions().markResumePending(h.key(alice), new ResumeReason("manual_resume_request"));
        h.storage.sessions().markResumePending(h.key(bob), ResumeReason.RESTART_INTERRUPTED);
        h.gateway.stop(StopKind.SHUTDOWN, false);
        h.restart();

        h.start();
        h.agent.awaitCalls(1, Harness.WAIT);
        awaitIdle();

        assertThat(h.agent.calls()).singleElement().satisfies(c -> assertThat(c.sessionKey()).isEqualTo(h.key(bob).value()));
        h.loopback("telegram").say(alice, "carry on");
        h.agent.awaitCalls(2, Harness.WAIT);
        assertThat(h.agent.messages().get(1)).startsWith("[System note:").endsWith("\n\ncarry on");
    }

    private void awaitIdle() {
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while ((h.gateway.status().claimedLanes() > 0 || h.gateway.status().activeTurns() > 0) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }
}
