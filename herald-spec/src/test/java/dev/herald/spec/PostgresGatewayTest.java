package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.SendResult;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.agent.ScriptedAgent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gateway's continuity on PostgreSQL (the scale-out store) instead of the SQLite file: the same harness, a
 * database of its own on the embedded server for each test, every process opening it again, and the store invariants
 * checked there after each test.
 */
class PostgresGatewayTest extends GatewaySpec {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    @BeforeEach
    void onPostgres() {
        h = new Harness(dir, (home, clock) -> PostgresStorage.open(db.options(), clock)).platform("telegram", true);
    }

    private TurnRecord latestStarted() {
        return h.storage.turns().latestStarted(h.key(alice)).orElseThrow();
    }

    @Test
    void aMessage_isAnswered_andItsTurnDeliveredOnce() {
        h.start();

        h.loopback("telegram").say(alice, "hello");

        h.loopback("telegram").awaitSent("echo: hello"::equals, Harness.WAIT);
        await().atMost(Harness.WAIT).until(() -> latestStarted().state() == TurnState.DELIVERED);
        assertThat(h.storage.describe()).startsWith("postgresql ");
    }

    @Test
    void E1_aStopMidTurn_marksTheSessionBeforeCuttingItOff_andTheNextProcessResumesItOnce() {
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("never");
        h.loopback("telegram").say(alice, "long task");
        hold.awaitArrival(Harness.WAIT);

        h.gateway.stop(StopKind.RESTART, false);
        assertThat(h.entry(alice).resumePending()).isTrue();
        assertThat(h.entry(alice).resumeReason()).isEqualTo(ResumeReason.RESTART_TIMEOUT);
        h.restart();
        h.start();

        h.agent.awaitCalls(1, Harness.WAIT);
        h.loopback("telegram").awaitSent(t -> t.startsWith("echo: [System note: The previous turn was interrupted by a gateway restart"),
                Harness.WAIT);
        await().atMost(Harness.WAIT).until(() -> !h.entry(alice).resumePending());
        assertThat(h.agent.calls()).hasSize(1);
    }

    @Test
    void G2_aCrashMidTurn_isSweptAtTheNextStart_andResumedAsRestartInterrupted() {
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("never delivered");
        h.loopback("telegram").say(alice, "deploy the site");
        hold.awaitArrival(Harness.WAIT);
        h.restart(); // killed: no stop

        Gateway.StartReport report = h.start();

        assertThat(report.recovered()).containsExactly(h.key(alice));
        h.agent.awaitCalls(1, Harness.WAIT);
        assertThat(h.agent.messages().getFirst()).startsWith("[System note: The previous turn was interrupted by a gateway interruption");
        await().atMost(Harness.WAIT).until(() -> latestStarted().state() == TurnState.DELIVERED);
        assertThat(h.storage.turns().inState(TurnState.INTERRUPTED, 10)).extracting(TurnRecord::text).containsExactly("deploy the site");
    }

    @Test
    void aFailureAfterStart_endsTheTurnFailed_apologizes_andTheNextMessageIsAnswered() {
        h.start();

        try (CrashPoints.Injection ignored = CrashPoints.failAt(CrashPoints.BEFORE_AGENT, 1)) {
            h.loopback("telegram").say(alice, "first");
            h.loopback("telegram").awaitSent(t -> t.startsWith("Sorry, something went wrong on my side"), Harness.WAIT);
        }
        h.loopback("telegram").say(alice, "second");

        h.loopback("telegram").awaitSent("echo: second"::equals, Harness.WAIT);
        assertThat(h.storage.turns().inState(TurnState.FAILED, 10)).singleElement().extracting(TurnRecord::text).isEqualTo("first");
        assertThat(h.loopback("telegram").sentMatching(t -> t.startsWith("Sorry"))).singleElement()
                .satisfies(s -> assertThat(s.message().kind()).isEqualTo(MessageKind.ERROR));
    }

    @Test
    void aReplyLeftHalfSentByACrash_isFinishedAfterTheRestart_fromThePartItStoppedAt() {
        h.start();
        h.loopback("telegram").onSend(m -> m.kind() == MessageKind.REPLY && m.part() == 2 ? SendResult.failed("connection reset", true)
                : SendResult.sent("m-" + m.part()));
        h.loopback("telegram").say(alice, "z".repeat(5_000));
        await().atMost(Harness.WAIT).until(() -> h.storage.turns().latestStarted(h.key(alice)).map(TurnRecord::partsDelivered).orElse(0) == 1);

        h.restart(); // killed: no stop
        h.start();

        await().atMost(Harness.WAIT).until(() -> latestStarted().state() == TurnState.DELIVERED);
        assertThat(h.loopback("telegram").sent()).filteredOn(s -> s.message().kind() == MessageKind.REPLY)
                .extracting(s -> s.message().part()).containsExactly(2);
        assertThat(h.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
