package dev.herald.web.metrics;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Compaction;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ToolState;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.transcript.Role;
import dev.herald.core.turn.TurnOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link Agent} that measures the one it wraps, from what every agent already tells its listener:
 * a model call runs from the turn's start (or from the last tool result) until the next assistant
 * message; its first streamed text gives the time to first token; a finished tool activity is one tool
 * call. Approval waits and tool execution fall between those points, so they are not counted as model
 * time. A call cut off without a message (interrupt, error with nothing streamed) is recorded at the
 * turn's end with the outcome's kind.
 */
public final class MeteredAgent implements Agent {
    private final Agent agent;
    private final HeraldMetrics metrics;

    public MeteredAgent(Agent agent, HeraldMetrics metrics) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
        Metered metered = new Metered(listener == null ? TurnListener.NONE : listener);
        TurnOutcome outcome = agent.runTurn(request, metered, interrupt);
        metered.turnEnded(outcome);
        return outcome;
    }

    @Override
    public Optional<Compaction> compact(List<ChatMessage> history, Interrupt interrupt) {
        return agent.compact(history, interrupt);
    }

    @Override
    public Optional<Compaction> compact(String sessionKey, List<ChatMessage> history, String focus, Interrupt interrupt) {
        return agent.compact(sessionKey, history, focus, interrupt);
    }

    @Override
    public Optional<String> aside(String sessionKey, List<ChatMessage> history, String question, Interrupt interrupt) {
        return agent.aside(sessionKey, history, question, interrupt);
    }

    @Override
    public String describe() {
        return agent.describe();
    }

    @Override
    public String modelName() {
        return agent.modelName();
    }

    @Override
    public List<dev.herald.core.agent.ModelOption> models() {
        return agent.models();
    }

    /** Forwards everything to the gateway's listener and times the model calls in between. */
    private final class Metered implements TurnListener {
        private final TurnListener delegate;
        private long callStart = System.nanoTime();
        private long firstToken = -1;
        private boolean callOpen = true;

        Metered(TurnListener delegate) {
            this.delegate = delegate;
        }

        @Override
        public synchronized void onMessage(ChatMessage message) {
            delegate.onMessage(message);
            long now = System.nanoTime();
            if (message.role() == Role.ASSISTANT && callOpen) {
                metrics.modelCall(Duration.ofNanos(now - callStart), firstToken < 0 ? null : Duration.ofNanos(firstToken - callStart), "message");
                callOpen = false;
            } else if (message.role() == Role.TOOL) {
                callStart = now;
                firstToken = -1;
                callOpen = true;
            }
        }

        @Override
        public void onDelta(String text) {
            synchronized (this) {
                if (firstToken < 0 && callOpen) {
                    firstToken = System.nanoTime();
                }
            }
            delegate.onDelta(text);
        }

        @Override
        public boolean showsDeltas() {
            return delegate.showsDeltas();
        }

        @Override
        public void onUsage(long inputTokens, long outputTokens) {
            delegate.onUsage(inputTokens, outputTokens);
        }

        @Override
        public void onToolActivity(String callId, String toolName, String summary, ToolState state) {
            if (state.finished() && state != ToolState.DENIED) { // a denied call never ran
                metrics.toolCall(toolName == null ? "unknown" : toolName, state == ToolState.OK);
            }
            delegate.onToolActivity(callId, toolName, summary, state);
        }

        @Override
        public ApprovalDecision requestApproval(ApprovalRequest request) {
            return delegate.requestApproval(request);
        }

        @Override
        public boolean canApprove() {
            return delegate.canApprove();
        }

        @Override
        public boolean senderMayApprove() {
            return delegate.senderMayApprove();
        }

        @Override
        public String onCompaction(Compaction compaction) {
            return delegate.onCompaction(compaction);
        }

        @Override
        public void onFile(dev.herald.core.platform.OutboundFile file) {
            delegate.onFile(file);
        }

        @Override
        public List<ChatMessage> steering() {
            return delegate.steering();
        }

        synchronized void turnEnded(TurnOutcome outcome) {
            if (callOpen) {
                long now = System.nanoTime();
                metrics.modelCall(Duration.ofNanos(now - callStart), firstToken < 0 ? null : Duration.ofNanos(firstToken - callStart),
                        outcome == null ? "unknown" : outcome.kind());
                callOpen = false;
            }
        }
    }
}
