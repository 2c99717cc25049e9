package dev.herald.core.metrics;

import dev.herald.core.continuity.NoteInjector;
import dev.herald.core.platform.Platform;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnTransition;

/**
 * What the gateway reports about its work, for /metrics and the admin page. The core only calls it;
 * the web module implements it with a metrics library.
 */
public interface GatewayMetrics {

    default void turnStarted(TurnRecord turn, NoteInjector.Note note) {
    }

    default void turnEnded(TurnRecord turn, TurnOutcome outcome, long nanos) {
    }

    default void resumeScheduled(Platform platform, String reason) {
    }

    default void sessionsSuspended(int count, String why) {
    }

    default void platformConnection(Platform platform, String state) {
    }

    /** A recorded reply did not go out: it waits for a later attempt, or (permanent) the platform refused it for good. */
    default void replyNotDelivered(Platform platform, boolean permanent) {
    }

    /** A part of a reply whose answer was never recorded (a crash, a lost answer) is being sent again. */
    default void replyPartResent(Platform platform) {
    }

    /** A turn moved along a row of the transition table. */
    default void turnMoved(long turnId, TurnTransition transition) {
    }

    /** The first turn of a new transcript session (a new chat, or after /new, /reset or an automatic reset) has started. */
    default void sessionStarted(TurnRecord turn) {
    }

    /** A turn asks its user to approve a dangerous tool call; called before the question goes out. */
    default void approvalRequested(TurnRecord turn, dev.herald.core.agent.ApprovalRequest request) {
    }

    /** The gateway of node {@code nodeId} finished starting and runs. */
    default void gatewayStarted(String nodeId) {
    }

    /** The gateway of node {@code nodeId} begins to stop; {@code kind} is shutdown, restart or handover. */
    default void gatewayStopping(String nodeId, String kind) {
    }

    GatewayMetrics NONE = new GatewayMetrics() {
    };
}
