package dev.herald.platforms.signal;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE_UUID;
import static dev.herald.platforms.signal.FakeSignalCli.GROUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.Invariant;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Continuity through Signal: the stop notices reach the asker's group and the home chat (spec E2, E3), a turn cut off by
 * a kill -9 is answered once by the next process, and a reply part whose sending was not recorded before a crash is sent
 * again (Signal has no idempotency key: at least once).
 */
class SignalRestartTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeSignalCli signal = new FakeSignalCli();
    @RegisterExtension
    final GatewayFixture herald = signal.herald(ALICE_UUID);

    @Test
    void E2_E3_aRestartDuringAHeldTurn_tellsTheGroupAndTheHomeChat_thenTheNextProcessAnswersOnce_quotingTheQuestion() {
        herald.home(new HomeChannel(SignalAdapter.PLATFORM, ChatTarget.of(ALICE_UUID), "alice"));
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("never finished");
        long asked = signal.group(ALICE_UUID, ALICE, "a long job", true);
        hold.awaitArrival(WAIT);

        herald.stop(StopKind.RESTART);

        String banner = StopKind.RESTART.banner();
        assertThat(signal.textsTo(GROUP)).containsExactly(banner);
        assertThat(signal.textsTo(ALICE_UUID)).containsExactly(banner);

        herald.nextProcess();
        herald.agent.reply("picking up where we left off");
        herald.start();

        await().atMost(WAIT).during(SETTLE).until(() -> signal.textsTo(GROUP).size() == 2);
        assertThat(signal.textsTo(GROUP).get(1)).isEqualTo("picking up where we left off");
        assertThat(signal.sendsTo(GROUP).get(1).path("quoteTimestamp").asLong()).as("the resumed answer quotes the question").isEqualTo(asked);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(signal.textsTo(ALICE_UUID)).as("the home chat hears nothing more").hasSize(1);
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        signal.dm(ALICE_UUID, ALICE, "work on this");
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(SETTLE).until(() -> signal.textsTo(ALICE_UUID).size() == 1);
        assertThat(signal.textsTo(ALICE_UUID)).containsExactly("resumed after the crash");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashAfterThePartWentOutButBeforeItWasRecorded_sendsItAgainAfterTheRestart_atLeastOnce() {
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "Signal has no idempotency key: the part in doubt after the crash "
                + "reaches the chat twice by design (at least once)");
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            signal.dm(ALICE_UUID, ALICE, "question");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn()).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        await().atMost(WAIT).until(() -> signal.textsTo(ALICE_UUID).size() == 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn().state() == TurnState.DELIVERED);
        await().atMost(WAIT).until(() -> signal.textsTo(ALICE_UUID).size() == 2);
        assertThat(signal.textsTo(ALICE_UUID)).as("at least once: the part in doubt went out again").containsExactly("the answer", "the answer");
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    private TurnRecord onlyTurn() {
        return herald.turns().stream().filter(t -> t.text().equals("question")).findFirst().orElseThrow();
    }
}
