package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.lanes.TurnRunner;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.PriorMessage;
import dev.herald.core.platform.Admission;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Spec F: auto-resume at start-up and on reconnect, through the real gateway. */
class F_AutoResumeTest extends GatewaySpec {
    final SessionSource bob = Harness.dm("telegram", "654321", "u2");

    /** Runs a turn for each source and stops the gateway while they are held, leaving them resume-pending. */
    private void interruptByRestart(SessionSource... sources) {
        h.start();
        for (SessionSource s : sources) {
            ScriptedAgent.Hold hold = h.agent.hold("never");
            h.loopback(s.platform().id()).say(s, "long task for " + s.chatId());
            hold.awaitArrival(Harness.WAIT);
        }
        h.gateway.stop(StopKind.RESTART, false);
        for (SessionSource s : sources) {
            assertThat(h.entry(s).resumePending()).isTrue();
        }
        h.restart();
    }

    @Test
    void F1_atStartEveryAuthorizedResumePendingSessionGetsOneInternalTurn() {
        h = new Harness(dir).platform("telegram", true);
        h.allowedUsers.add("u2");
        interruptByRestart(alice, bob);

        h.start();

        h.agent.awaitCalls(2, Harness.WAIT);
        awaitIdle();
        assertThat(h.agent.messages()).hasSize(2).allSatisfy(m -> assertThat(m)
                .startsWith("[System note: The previous turn was interrupted by a gateway restart")
                .contains("restored successfully"));
        assertThat(h.entry(alice).resumePending()).isFalse();
        assertThat(h.entry(bob).resumePending()).isFalse();
        assertThat(h.loopback("telegram").sentMatching(t -> t.startsWith("echo:"))).hasSize(2);
    }

    @Test
    void F2_anOwnerNoLongerAuthorizedGetsNothing() {
        h = new Harness(dir).platform("telegram", true);
        h.allowedUsers.add("u2");
        interruptByRestart(alice, bob);
        h.allowedUsers.remove("u2");
        long turnsBefore = countTurns();

        h.start();
        h.agent.awaitCalls(1, Harness.WAIT);
        awaitIdle();

        assertThat(h.agent.calls()).singleElement().satisfies(c -> assertThat(c.sessionKey()).isEqualTo(h.key(alice).value()));
        assertThat(h.entry(bob).resumePending()).as("left as it was").isTrue();
        assertThat(countTurns()).as("one turn stored, alice's").isEqualTo(turnsBefore + 1);
        assertThat(h.gateway.status().claimedLanes()).isZero();
    }

    @Test
    void F3_aReconnectingPlatformResumesOnlyItsOwnSessions() {
        h = new Harness(dir).platform("telegram", true).platform("discord", true);
        SessionSource carol = Harness.dm("discord", "dc-chat", "u1");
        interruptByRestart(alice, carol);
        h.startDisconnected.add("discord");
        h.build();

        h.start();
        h.agent.awaitCalls(1, Harness.WAIT);
        awaitIdle();
        assertThat(h.agent.calls()).singleElement().satisfies(c -> assertThat(c.platformId()).isEqualTo("telegram"));
        assertThat(h.entry(carol).resumePending()).isTrue();

        h.loopback("discord").reconnect();

        h.agent.awaitCalls(2, Harness.WAIT);
        awaitIdle();
        assertThat(h.agent.calls().get(1).platformId()).isEqualTo("discord");
        assertThat(h.entry(carol).resumePending()).isFalse();
    }

    @Test
    void F4_theResumeClaimsTheLaneSoAnInboundMessageWaitsBehindIt() throws Exception {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withStartupRestoreTimeout(Duration.ofMillis(100));
        interruptByRestart(alice);
        ScriptedAgent.Hold resume = h.agent.hold("resumed answer");

        h.start();
        resume.awaitArrival(Harness.WAIT);
        assertThat(h.loopback("telegram").say(alice, "are you there?")).isEqualTo(Admission.ACCEPTED);
        Thread.sleep(200);
        assertThat(h.agent.calls()).as("no second agent while the resume runs").hasSize(1);

        resume.release();
        h.agent.awaitCalls(2, Harness.WAIT);
        awaitIdle();
        assertThat(h.agent.messages().get(1)).isEqualTo("are you there?");
        assertThat(h.gateway.status().claimedLanes()).isZero();
    }

    @Test
    void F5_theResumedAgentRunsExactlyOnceAndLeavesNothingBehind() throws Exception {
        h = new Harness(dir).platform("telegram", true);
        interruptByRestart(alice);

        h.start();
        h.agent.awaitCalls(1, Harness.WAIT);
        awaitIdle();
        Thread.sleep(100);

        assertThat(h.agent.calls()).hasSize(1);
        assertThat(h.gateway.status().claimedLanes()).isZero();
        assertThat(h.gateway.status().waitingTurns()).isZero();
        assertThat(h.storage.turns().inState(TurnState.RECEIVED, 10)).isEmpty();
        assertThat(h.storage.turns().inState(TurnState.RUNNING, 10)).isEmpty();
        assertThat(h.loopback("telegram").sentMatching(t -> t.startsWith("echo:"))).hasSize(1);
    }

    @Test
    void F6_inboundDuringStartupRestoreIsHeldAndReplayedInOrderAfterTheResumeTurns() throws Exception {
        h = new Harness(dir).platform("telegram", true);
        interruptByRestart(alice);
        ScriptedAgent.Hold resume = h.agent.hold("resumed");

        CompletableFuture<Gateway.StartReport> started = h.startAsync();
        resume.awaitArrival(Harness.WAIT);
        assertThat(h.gateway.status().restoring()).isTrue();
        assertThat(h.loopback("telegram").say(bob(), "hello")).isEqualTo(Admission.ACCEPTED);
        assertThat(h.loopback("telegram").say(alice, "me again")).isEqualTo(Admission.ACCEPTED);
        Thread.sleep(200);
        assertThat(h.agent.calls()).as("held, not answered").hasSize(1);

        resume.release();
        Gateway.StartReport report = started.get(10, TimeUnit.SECONDS);
        h.agent.awaitCalls(3, Harness.WAIT);
        awaitIdle();

        assertThat(report.replayed()).isEqualTo(2);
        assertThat(report.restoreTimedOut()).isFalse();
        assertThat(h.agent.messages().subList(1, 3)).containsExactlyInAnyOrder("hello", "me again");
        assertThat(h.gateway.status().restoring()).isFalse();
    }

    @Test
    void F7_theGateOpensAfterTheBoundAndTheSlowResumeFinishesInTheBackground() throws Exception {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withStartupRestoreTimeout(Duration.ofMillis(300));
        interruptByRestart(alice);
        ScriptedAgent.Hold resume = h.agent.hold("slow but done");

        CompletableFuture<Gateway.StartReport> started = h.startAsync();
        resume.awaitArrival(Harness.WAIT);
        h.loopback("telegram").say(bob(), "anyone?");

        Gateway.StartReport report = started.get(10, TimeUnit.SECONDS);
        h.agent.awaitCalls(2, Harness.WAIT);
        assertThat(report.restoreTimedOut()).isTrue();
        assertThat(h.agent.messages().get(1)).isEqualTo("anyone?");
        assertThat(resume.arrived()).isTrue();

        resume.release();
        h.loopback("telegram").awaitSent("slow but done"::equals, Harness.WAIT);
        awaitIdle();
        assertThat(h.entry(alice).resumePending()).isFalse();
    }

    /**
     * On a cluster the session's next message can run before the resume turn another node queued: it carries the
     * interruption note and continues the cut-off turn, and the resume, when it comes to run, finds nothing left and is
     * cancelled. A client that sends the cut-off message again (same request id) is told that the next turn continued
     * it, never that its message was cancelled by a /stop or an access change, which did not happen.
     */
    @Test
    void F8_aRetryOfACutOffMessageWhoseResumeFoundNothingLeftIsToldTheNextTurnContinuedIt() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("never");
        h.loopback("telegram").say(alice, "long task", "m-1");
        hold.awaitArrival(Harness.WAIT);
        h.gateway.stop(StopKind.RESTART, false);
        h.restart();
        // what the nodes wrote: the next message consumed the note; the resume queued meanwhile then found nothing left
        assertThat(h.storage.sessions().clearResumePending(h.key(alice))).isTrue();
        Turns turns = new Turns(h.storage.turns());
        TurnRecord resume = turns.receive(h.key(alice), MessageEvent.resume(alice, java.time.Instant.now(), "m-1")).orElseThrow();
        assertThat(turns.cancel(resume.id(), TurnRunner.NOTHING_TO_RESUME)).isTrue();
        h.start();

        assertThat(h.gateway.prior(alice.platform(), "m-1")).get().isInstanceOfSatisfying(PriorMessage.Ended.class,
                e -> assertThat(e.why()).contains("cut off by a restart").contains("next turn continued it"));
    }

    private SessionSource bob() {
        h.allowedUsers.add("u2");
        return bob;
    }

    private long countTurns() {
        long n = 0;
        for (TurnState s : TurnState.values()) {
            n += h.storage.turns().inState(s, 100_000).size();
        }
        return n;
    }

    private void awaitIdle() {
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while ((h.gateway.status().claimedLanes() > 0 || h.gateway.status().activeTurns() > 0) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }
}
