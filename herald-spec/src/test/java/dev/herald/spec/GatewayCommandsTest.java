package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.gateway.Gateway;
import dev.herald.core.lanes.BusyPolicy;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SuspendReason;
import dev.herald.testkit.agent.ScriptedAgent;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Slash commands and busy input, through the real gateway: answered inline, never a model turn. */
class GatewayCommandsTest extends GatewaySpec {
    private LoopbackPlatform chat() {
        return h.loopback("telegram");
    }

    @Test
    void status_whileATurnRuns_isAnsweredAtOnceAndShowsTheRunningTurn() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("done");
        chat().say(alice, "long job");
        hold.awaitArrival(Harness.WAIT);

        assertThat(chat().say(alice, "/status")).isEqualTo(Admission.ANSWERED);

        assertThat(chat().awaitSent(t -> t.startsWith("Session:"), Harness.WAIT).text()).contains("Turn: running", "Resume: none");
        assertThat(h.agent.calls()).hasSize(1);
        hold.release();
    }

    @Test
    void status_showsTokensOfTheSessionAndOfItsLastTurn() {
        h = new Harness(dir).platform("telegram", true);
        h.agentOverride = new dev.herald.core.agent.Agent() {
            @Override
            public dev.herald.core.turn.TurnOutcome runTurn(dev.herald.core.agent.TurnRequest request,
                    dev.herald.core.agent.TurnListener listener, dev.herald.core.agent.Interrupt interrupt) {
                int size = request.userMessage().length();
                listener.onUsage(100 * size, 20); // two model calls in one turn
                listener.onUsage(100 * size, 20);
                return new dev.herald.core.turn.TurnOutcome.Final("ok " + request.userMessage());
            }

            @Override
            public String describe() {
                return "counting";
            }
        };
        h.start();
        chat().say(alice, "a");
        chat().awaitSent("ok a"::equals, Harness.WAIT);
        chat().say(alice, "bbb");
        chat().awaitSent("ok bbb"::equals, Harness.WAIT);

        chat().say(alice, "/status");

        assertThat(chat().awaitSent(t -> t.startsWith("Session:"), Harness.WAIT).text())
                .contains("Tokens: 800 in / 80 out (last turn: 600 in / 40 out)");
    }

    @Test
    void stop_interruptsTheTurnCancelsQueuedOnesAndTheNextMessageStartsFresh() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("never");
        chat().say(alice, "long job");
        hold.awaitArrival(Harness.WAIT);
        chat().say(alice, "and then this");
        String before = h.entry(alice).sessionId();

        chat().say(alice, "/stop");

        chat().awaitSent(t -> t.startsWith("\u23f9 Stopped."), Harness.WAIT);
        assertThat(h.entry(alice).suspendReason()).isEqualTo(SuspendReason.STOP_COMMAND);
        chat().say(alice, "/status");
        assertThat(chat().awaitSent(t -> t.startsWith("Session:"), Harness.WAIT).text())
                .contains("State: suspended: stopped with /stop in the chat (next message starts fresh)");
        chat().say(alice, "hello again");
        h.agent.awaitCalls(2, Harness.WAIT);
        assertThat(h.agent.messages()).containsExactly("long job", "hello again");
        assertThat(h.agent.calls().get(1).history()).as("a fresh session has no history").isEmpty();
        assertThat(h.entry(alice).sessionId()).isNotEqualTo(before);
    }

    @Test
    void new_startsAFreshSessionWithoutAModelTurn() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        chat().say(alice, "remember the number 7");
        h.agent.awaitCalls(1, Harness.WAIT);
        chat().awaitSent(t -> t.startsWith("echo:"), Harness.WAIT);
        String before = h.entry(alice).sessionId();

        chat().say(alice, "/new");
        chat().awaitSent(t -> t.contains("New session started"), Harness.WAIT);
        chat().say(alice, "what number?");

        h.agent.awaitCalls(2, Harness.WAIT);
        assertThat(h.agent.calls().get(1).history()).isEmpty();
        assertThat(h.entry(alice).sessionId()).isNotEqualTo(before);
    }

    @Test
    void unknownCommand_getsAHelpLineAndNoTurn() {
        h = new Harness(dir).platform("telegram", true);
        h.start();

        assertThat(chat().say(alice, "/frobnicate now")).isEqualTo(Admission.ANSWERED);

        assertThat(chat().awaitSent(t -> t.startsWith("Unknown command"), Harness.WAIT).text()).contains("/frobnicate", "/help");
        assertThat(h.agent.calls()).isEmpty();
    }

    @Test
    void queue_waitsBehindTheRunningTurnEvenUnderTheInterruptPolicy() {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withBusyPolicy(BusyPolicy.INTERRUPT);
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("first done");
        chat().say(alice, "first");
        hold.awaitArrival(Harness.WAIT);

        chat().say(alice, "/queue second");
        chat().awaitSent(t -> t.startsWith("Queued."), Harness.WAIT);
        assertThat(h.agent.calls()).hasSize(1);
        hold.release();

        h.agent.awaitCalls(2, Harness.WAIT);
        assertThat(h.agent.messages()).containsExactly("first", "second");
        chat().awaitSent("first done"::equals, Harness.WAIT);
    }

    @Test
    void interruptPolicy_aNewMessageCutsOffTheRunningTurn() {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withBusyPolicy(BusyPolicy.INTERRUPT);
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("never delivered");
        chat().say(alice, "slow question");
        hold.awaitArrival(Harness.WAIT);

        chat().say(alice, "actually, this instead");

        h.agent.awaitCalls(2, Harness.WAIT);
        chat().awaitSent(t -> t.startsWith("echo:"), Harness.WAIT);
        assertThat(chat().sentMatching("never delivered"::equals)).isEmpty();
    }

    @Test
    void restart_fromANonAdminIsRefusedAndFromAnAdminIsConfirmedAfterTheRestart() {
        h = new Harness(dir).platform("telegram", true);
        AtomicReference<SessionSource> requested = new AtomicReference<>();
        h.with(b -> b.onRestartRequested(requested::set));
        h.build();
        h.start();
        SessionSource stranger = Harness.dm("telegram", "999", "u9");
        h.allowedUsers.add("u9");

        h.adminUsers.add("u1");
        chat().say(stranger, "/restart");
        chat().awaitSent(t -> t.contains("/restart is for admins here"), Harness.WAIT);
        assertThat(requested.get()).isNull();
        chat().say(alice, "/restart");
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while (requested.get() == null && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(requested.get()).isEqualTo(alice);

        h.gateway.stop(dev.herald.core.gateway.StopKind.RESTART, true);
        h.restart();
        h.gateway.start(new Gateway.StartOptions(true, Optional.of(alice)));

        assertThat(chat().awaitSent(t -> t.contains("restarted successfully"), Harness.WAIT).target().chatId()).isEqualTo("123456");
        assertThat(chat().sent()).extracting(LoopbackPlatform.Sent::text).filteredOn(t -> t.contains("restarted successfully")).hasSize(1);
    }

}
