package dev.herald.platforms;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.turn.TurnOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test agent for what a platform shows while a turn runs: each turn writes its {@code deltas} (pausing {@code pause}
 * after each, so a platform that edits a draft sees each one), then, when it has a tool to run, asks the chat to
 * approve it and runs it (counted in {@link #toolRuns}) only when approved, and answers {@link #DONE} or
 * {@link #NOT_RUN}; without a tool it answers the deltas joined.
 */
public final class StreamingToolAgent implements Agent {
    public static final String DONE = "Done: the build folder is removed.";
    public static final String NOT_RUN = "I did not remove the build folder.";

    public final AtomicInteger toolRuns = new AtomicInteger();
    public final List<ApprovalDecision> decisions = new CopyOnWriteArrayList<>();
    private final List<String> deltas;
    private final Duration pause;
    private final boolean asksApproval;

    private StreamingToolAgent(List<String> deltas, Duration pause, boolean asksApproval) {
        this.deltas = List.copyOf(deltas);
        this.pause = pause;
        this.asksApproval = asksApproval;
    }

    /** Turns that write {@code deltas} and then ask to run {@code shell rm -rf build}. */
    public static StreamingToolAgent askingApproval(String... deltas) {
        return new StreamingToolAgent(List.of(deltas), Duration.ZERO, true);
    }

    /** Turns that write {@code deltas}, {@code pause} apart, and answer them joined. */
    public static StreamingToolAgent writing(Duration pause, String... deltas) {
        return new StreamingToolAgent(List.of(deltas), pause, false);
    }

    @Override
    public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
        for (String d : deltas) {
            listener.onDelta(d);
            sleep(pause);
        }
        String reply = String.join("", deltas);
        if (asksApproval) {
            ApprovalDecision d = listener.requestApproval(new ApprovalRequest("call-1", "shell", "rm -rf build", "deletes files",
                    "rm -rf build"));
            decisions.add(d);
            if (d.approved()) {
                toolRuns.incrementAndGet();
            }
            reply = d.approved() ? DONE : NOT_RUN;
        }
        listener.onMessage(ChatMessage.assistant(reply));
        return new TurnOutcome.Final(reply);
    }

    @Override
    public String describe() {
        return "streaming tool test agent";
    }

    private static void sleep(Duration d) {
        if (d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
