package dev.herald.web.api;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.turn.TurnOutcome;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A test agent whose turns follow a script: stream some deltas, report usage, end with a chosen outcome. */
final class ScriptedAgent implements Agent {

    @FunctionalInterface
    interface Script {
        TurnOutcome run(TurnRequest request, TurnListener listener, Interrupt interrupt) throws Exception;
    }

    final List<TurnRequest> requests = new CopyOnWriteArrayList<>();
    final List<Interrupt> interrupts = new CopyOnWriteArrayList<>();
    private volatile Script script;

    ScriptedAgent(Script script) {
        this.script = script;
    }

    /** Streams {@code deltas}, reports usage 12 in / 5 out, and answers with their concatenation. */
    static ScriptedAgent replying(String... deltas) {
        return new ScriptedAgent((request, listener, interrupt) -> {
            for (String d : deltas) {
                listener.onDelta(d);
            }
            listener.onUsage(12, 5);
            return new TurnOutcome.Final(String.join("", deltas));
        });
    }

    /** Streams a delta every 20 ms until interrupted, then ends Interrupted. */
    static ScriptedAgent streamingUntilInterrupted() {
        return new ScriptedAgent((request, listener, interrupt) -> {
            for (int i = 0; i < 1_000 && !interrupt.isRaised(); i++) {
                listener.onDelta("tick " + i + " ");
                Thread.sleep(20);
            }
            return new TurnOutcome.Interrupted(interrupt.reason());
        });
    }

    /** Says nothing until interrupted (or 30 s pass). */
    static ScriptedAgent silentUntilInterrupted() {
        return new ScriptedAgent((request, listener, interrupt) -> {
            CountDownLatch raised = new CountDownLatch(1);
            interrupt.onRaise(raised::countDown);
            raised.await(30, TimeUnit.SECONDS);
            return new TurnOutcome.Interrupted(interrupt.reason());
        });
    }

    void script(Script next) {
        this.script = next;
    }

    Interrupt lastInterrupt() {
        return interrupts.getLast();
    }

    @Override
    public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
        requests.add(request);
        interrupts.add(interrupt);
        try {
            return script.run(request, listener, interrupt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new TurnOutcome.Interrupted("thread interrupted");
        } catch (Exception e) {
            return new TurnOutcome.Errored("script failed: " + e);
        }
    }

    @Override
    public String describe() {
        return "scripted-test-agent";
    }
}
