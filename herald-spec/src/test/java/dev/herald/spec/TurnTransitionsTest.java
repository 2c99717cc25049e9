package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.herald.core.CrashPoints;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.SendResult;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnTransition;
import dev.herald.testkit.agent.ScriptedAgent;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every row of the turn's transition table is driven by a real gateway, on a real store: one scenario per row,
 * and a row without a scenario is a failing test ("no test exercises it"). The gateway reports each move it makes
 * through its metrics; a scenario passes when its row was among them.
 */
class TurnTransitionsTest {
    @TempDir
    Path dir;

    /** What a user does to make the gateway take one row of the table. */
    private static final Map<TurnTransition, Consumer<Harness>> SCENARIOS = Map.of(
            TurnTransition.START, TurnTransitionsTest::answered,
            TurnTransition.RECORD_REPLY, TurnTransitionsTest::answered,
            TurnTransition.DELIVER, TurnTransitionsTest::answered,
            TurnTransition.CANCEL, TurnTransitionsTest::queuedThenStopped,
            TurnTransition.INTERRUPT, TurnTransitionsTest::queuedThenStopped,
            TurnTransition.COMPLETE, TurnTransitionsTest::silentTurn,
            TurnTransition.FAIL, TurnTransitionsTest::failureAfterStart,
            TurnTransition.REFUSE, TurnTransitionsTest::refusedForGood);

    @TestFactory
    Stream<DynamicTest> everyRowOfTheTable_isDrivenByAGateway() {
        return Arrays.stream(TurnTransition.values()).map(t -> dynamicTest(t.name() + ": " + t.from() + " -> " + t.to(), () -> {
            Consumer<Harness> scenario = SCENARIOS.get(t);
            assertThat(scenario).as("no test exercises the transition %s (%s -> %s): add a scenario here", t, t.from(), t.to())
                    .isNotNull();
            List<TurnTransition> moves = new CopyOnWriteArrayList<>();
            try (Harness h = new Harness(dir.resolve(t.name())).platform("telegram", true)) {
                h.metrics = new GatewayMetrics() {
                    @Override
                    public void turnMoved(long turnId, TurnTransition transition) {
                        moves.add(transition);
                    }
                };
                h.start();
                scenario.accept(h);
                await().atMost(Harness.WAIT).until(() -> moves.contains(t));
                h.gateway.stop(StopKind.SHUTDOWN, false);
            }
        }));
    }

    private static final dev.herald.core.session.SessionSource ALICE = Harness.dm("telegram", "123456", "u1");

    private static void answered(Harness h) {
        h.loopback("telegram").say(ALICE, "hello");
        h.loopback("telegram").awaitSent("echo: hello"::equals, Harness.WAIT);
    }

    /** A held turn with one queued behind it; /stop cancels the queued one and interrupts the held one. */
    private static void queuedThenStopped(Harness h) {
        ScriptedAgent.Hold hold = h.agent.hold("never");
        h.loopback("telegram").say(ALICE, "long task");
        hold.awaitArrival(Harness.WAIT);
        h.loopback("telegram").say(ALICE, "queued");
        h.loopback("telegram").say(ALICE, "/stop");
    }

    private static void silentTurn(Harness h) {
        h.agent.outcome(new TurnOutcome.Completed());
        h.loopback("telegram").say(ALICE, "do it quietly");
    }

    private static void failureAfterStart(Harness h) {
        try (CrashPoints.Injection ignored = CrashPoints.failAt(CrashPoints.BEFORE_AGENT, 1)) {
            h.loopback("telegram").say(ALICE, "this breaks");
            h.loopback("telegram").awaitSent(t -> t.startsWith("Sorry, something went wrong"), Harness.WAIT);
        }
    }

    private static void refusedForGood(Harness h) {
        h.loopback("telegram").onSend(m -> m.kind() == dev.herald.core.platform.MessageKind.REPLY
                ? SendResult.failed("403 Forbidden: bot was blocked by the user", false) : SendResult.sent("ok"));
        h.loopback("telegram").say(ALICE, "hello");
    }
}
