package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import dev.herald.core.gateway.StopKind;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.Invariant;
import dev.herald.testkit.gateway.StoreInvariants;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The store invariants the testkit's harness checks after every gateway test, broken on purpose: each violation
 * fails the test with a line naming the turn or session and what is wrong, and a test may skip one check only
 * with a reason.
 */
class StoreInvariantsTest extends GatewaySpec {

    /** Closes the harness as the end of a test does and returns what it reported. */
    private String reportAtClose() {
        Harness closing = h;
        h = null; // closed here, not again by GatewaySpec
        AssertionError[] thrown = new AssertionError[1];
        assertThatThrownBy(closing::close).isInstanceOf(AssertionError.class).satisfies(e -> thrown[0] = (AssertionError) e);
        return thrown[0].getMessage();
    }

    /** Says {@code text} and returns its turn once delivered (its reply was sent, and recorded as sent). */
    private TurnRecord answered(String text) {
        h.loopback("telegram").say(alice, text);
        h.loopback("telegram").awaitSent(("echo: " + text)::equals, Harness.WAIT);
        await().atMost(Harness.WAIT).until(() -> h.storage.turns().latestStarted(h.key(alice)).orElseThrow().state() == TurnState.DELIVERED);
        return h.storage.turns().latestStarted(h.key(alice)).orElseThrow();
    }

    /** A turn RUNNING in the store that no lane runs, as a failure that could not be recorded would leave it. */
    private TurnRecord orphan(String text) {
        SessionEntry lane = h.storage.sessions().getOrCreate(h.key(alice), alice);
        Turns turns = new Turns(h.storage.turns());
        TurnRecord t = turns.receive(lane.key(), MessageEvent.text(alice, text, null, h.clock.instant())).orElseThrow();
        return turns.start(t.id(), lane.sessionId(), TranscriptRow.user(text, h.clock.instant())).orElseThrow();
    }

    @Test
    void aTurnRunningWithoutALane_isReportedWhileTheGatewayRuns_andAfterItStopped_namingTheTurnAndItsSession() {
        h = new Harness(dir).platform("telegram", true); // its watchdog sweeps hourly: nothing ends the orphan
        h.start();
        TurnRecord orphan = orphan("lost work");

        String report = reportAtClose();

        String turn = "turn " + orphan.id() + " (session agent:main:telegram:dm:123456, user event " + orphan.eventId();
        assertThat(report).contains(turn + ", RUNNING) is RUNNING in the store, but no lane of the running gateway has run it for 2000 ms")
                .contains(turn + ", RUNNING) is still RUNNING after the gateway stopped");
    }

    @Test
    void aTurnLeftRunningByAKilledProcess_isReported_unlessTheTestSkipsThatCheckWithItsReason() throws IOException {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        ScriptedAgent.Hold held = h.agent.hold("never");
        h.loopback("telegram").say(alice, "long work");
        held.awaitArrival(Harness.WAIT);
        h.restart(); // killed mid-turn; the next process is built but never started, so nothing sweeps the turn
        long running = h.storage.turns().inState(TurnState.RUNNING, 10).getFirst().id();

        String report = reportAtClose();

        assertThat(report).contains("turn " + running + " (session agent:main:telegram:dm:123456").contains("is still RUNNING after the gateway stopped");

        h = new Harness(Files.createDirectories(dir.resolve("second"))).platform("telegram", true);
        h.start();
        ScriptedAgent.Hold again = h.agent.hold("never");
        h.loopback("telegram").say(alice, "long work");
        again.awaitArrival(Harness.WAIT);
        h.restart();
        h.skipCheck(Invariant.NO_TURN_LEFT_RUNNING, "the process is killed mid-turn and no next process starts to sweep it");
    }

    @Test
    void aSecondFinalReplyToOneTurn_isReported_withBothMessages() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        TurnRecord turn = answered("hello");
        PlatformAdapter wired = h.gateway.platforms().adapter(Platform.of("telegram")).orElseThrow();

        wired.send(new OutboundMessage(alice.target(), "echo: hello, again", MessageKind.REPLY, null, turn.eventId(), 1, 1, "h-again"));
        String report = reportAtClose();

        assertThat(report).contains("turn " + turn.id() + " (session agent:main:telegram:dm:123456, user event " + turn.eventId()
                + ", DELIVERED) got 2 final replies: telegram message 1 (REPLY part 1/1, process 0, \"echo: hello\"); telegram message 2 "
                + "(REPLY part 1/1, process 0, \"echo: hello, again\")");
    }

    @Test
    void aResendThePlatformAnswersWithTheSameMessageForTheSameKey_isOneReply() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        h.loopback("telegram").onSend(m -> SendResult.sent(m.idempotencyKey() == null ? "notice" : "msg-" + m.idempotencyKey()));
        h.loopback("telegram").say(alice, "hello");
        h.loopback("telegram").awaitSent("echo: hello"::equals, Harness.WAIT);
        org.awaitility.Awaitility.await().atMost(Harness.WAIT).until(() -> h.storage.turns().latestStarted(h.key(alice))
                .map(t -> t.state() == TurnState.DELIVERED).orElse(false)); // the turn is over: the stop below interrupts nothing
        OutboundMessage first = h.kit.sent().getFirst().message();

        h.gateway.platforms().adapter(Platform.of("telegram")).orElseThrow().send(first); // as Discord answers an enforced nonce
        h.gateway.stop(StopKind.SHUTDOWN, false);

        TurnRecord turn = h.storage.turns().latestStarted(h.key(alice)).orElseThrow();
        assertThat(turn.state()).isEqualTo(TurnState.DELIVERED);
        assertThat(h.kit.sent()).hasSize(2).allSatisfy(s -> assertThat(s.messageId()).isEqualTo(turn.replyMessageId()));
        assertThat(StoreInvariants.afterStop(h.storage, h.kit.sent(), Set.of())).isEmpty();
    }

    @Test
    void aResumeMarkOnALaneWhoseNewestTurnSucceeded_isReported() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        TurnRecord turn = answered("hello");

        h.storage.sessions().markResumePending(h.key(alice));
        String report = reportAtClose();

        assertThat(report).contains("session agent:main:telegram:dm:123456 is resume-pending (restart_timeout, marked at 2026-04-18T12:00:00Z), "
                + "but its newest turn " + turn.id() + " ended by itself (DELIVERED, outcome final): a finished lane must not be resumed");
    }

    @Test
    void skippingACheckWithoutAReason_isRefused() {
        h = new Harness(dir).platform("telegram", true);

        assertThatThrownBy(() -> h.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("harness - skipping ONE_FINAL_REPLY_PER_TURN needs a reason (what in the scenario breaks it)");
    }
}
