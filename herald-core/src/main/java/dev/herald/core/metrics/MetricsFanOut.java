package dev.herald.core.metrics;

import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.continuity.NoteInjector;
import dev.herald.core.platform.Platform;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnTransition;
import java.util.List;

/**
 * Several {@link GatewayMetrics} as one: every call goes to each in order (the metrics library, then the lifecycle
 * hooks). Each receiver must return quickly and never throw, as the gateway asks of any {@code GatewayMetrics}.
 */
public final class MetricsFanOut implements GatewayMetrics {
    private final List<GatewayMetrics> all;

    private MetricsFanOut(List<GatewayMetrics> all) {
        this.all = List.copyOf(all);
    }

    /** {@code first} and then {@code others}, as one receiver. */
    public static GatewayMetrics of(GatewayMetrics first, GatewayMetrics... others) {
        if (others.length == 0) {
            return first;
        }
        java.util.ArrayList<GatewayMetrics> list = new java.util.ArrayList<>();
        list.add(first);
        list.addAll(List.of(others));
        return new MetricsFanOut(list);
    }

    @Override
    public void turnStarted(TurnRecord turn, NoteInjector.Note note) {
        all.forEach(m -> m.turnStarted(turn, note));
    }

    @Override
    public void turnEnded(TurnRecord turn, TurnOutcome outcome, long nanos) {
        all.forEach(m -> m.turnEnded(turn, outcome, nanos));
    }

    @Override
    public void resumeScheduled(Platform platform, String reason) {
        all.forEach(m -> m.resumeScheduled(platform, reason));
    }

    @Override
    public void sessionsSuspended(int count, String why) {
        all.forEach(m -> m.sessionsSuspended(count, why));
    }

    @Override
    public void platformConnection(Platform platform, String state) {
        all.forEach(m -> m.platformConnection(platform, state));
    }

    @Override
    public void replyNotDelivered(Platform platform, boolean permanent) {
        all.forEach(m -> m.replyNotDelivered(platform, permanent));
    }

    @Override
    public void replyPartResent(Platform platform) {
        all.forEach(m -> m.replyPartResent(platform));
    }

    @Override
    public void turnMoved(long turnId, TurnTransition transition) {
        all.forEach(m -> m.turnMoved(turnId, transition));
    }

    @Override
    public void sessionStarted(TurnRecord turn) {
        all.forEach(m -> m.sessionStarted(turn));
    }

    @Override
    public void approvalRequested(TurnRecord turn, ApprovalRequest request) {
        all.forEach(m -> m.approvalRequested(turn, request));
    }

    @Override
    public void gatewayStarted(String nodeId) {
        all.forEach(m -> m.gatewayStarted(nodeId));
    }

    @Override
    public void gatewayStopping(String nodeId, String kind) {
        all.forEach(m -> m.gatewayStopping(nodeId, kind));
    }
}
