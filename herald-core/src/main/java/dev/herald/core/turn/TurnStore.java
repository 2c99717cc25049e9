package dev.herald.core.turn;

import dev.herald.core.continuity.FreshnessWindow;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.transcript.TranscriptRow;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable turns: the inbound queue, the in-flight record, and the outbox of final replies.
 *
 * <p>Every state change is one conditional update (compare-and-set on the state column); a false or
 * empty result means the turn was not in the expected state and nothing changed. At most one turn per
 * session key is RUNNING at a time: {@link #start} refuses a second one.
 */
public interface TurnStore {

    /**
     * Stores an inbound event as a turn in state RECEIVED. When the event has a platform message id
     * that was stored before for the same platform, nothing is stored and the result is empty (durable
     * dedupe). The event is durable when this returns.
     */
    Optional<TurnRecord> receive(SessionKey key, MessageEvent event);

    /**
     * Moves a RECEIVED turn to RUNNING in session {@code sessionId} and, in the same transaction, appends
     * {@code userRow} (when not null) to that transcript. Empty when the turn is not RECEIVED or another
     * turn of the same session key is RUNNING.
     */
    Optional<TurnRecord> start(long turnId, String sessionId, TranscriptRow userRow);

    /** RUNNING to AWAITING_DELIVERY, recording the outcome kind and the reply to deliver. */
    boolean recordReply(long turnId, String outcome, String reply);

    /** AWAITING_DELIVERY to DELIVERED, recording the platform's id of the sent reply (may be null). */
    boolean markDelivered(long turnId, String replyMessageId);

    /**
     * Records that the first {@code parts} parts of a split reply were sent, so that a later attempt
     * (after a failure or a crash) starts after them. Never moves backwards; false when the turn is not
     * AWAITING_DELIVERY.
     */
    boolean markPartsDelivered(long turnId, int parts);

    /**
     * Records a failed delivery attempt of an AWAITING_DELIVERY turn: counts it, keeps {@code error}
     * (the platform's words, no secrets) and the time. {@code permanent} moves it to UNDELIVERABLE
     * (the platform refused it for good); otherwise it stays for a later attempt.
     */
    boolean recordDeliveryFailure(long turnId, String error, boolean permanent);

    /** Adds model token usage to the turn (each model call of a turn reports its own). */
    void addUsage(long turnId, long inputTokens, long outputTokens);

    /** The lane's newest turn that has started (RUNNING or later: not still waiting, not cancelled), if any. */
    Optional<TurnRecord> latestStarted(SessionKey key);

    /** RUNNING to a terminal state without a reply: DELIVERED (nothing to send), INTERRUPTED or FAILED. */
    boolean finish(long turnId, TurnState terminal, String outcome);

    /** RECEIVED to CANCELLED (the turn will never run: the sender lost access, the lane was reset). */
    boolean cancel(long turnId, String why);

    Optional<TurnRecord> find(long turnId);

    /** Turns in {@code state}, oldest first; at most {@code limit}. */
    List<TurnRecord> inState(TurnState state, int limit);

    /**
     * The start-up sweep after an unclean stop (spec G2, B5): every RUNNING turn becomes INTERRUPTED.
     * For each one whose lane is neither resume-pending nor suspended and whose interruption is fresh
     * (the last transcript row of its session, else its start, within {@code window}), the lane is
     * marked resume-pending with reason {@code restart_interrupted}, in the same transaction. Every lane
     * that had a RUNNING turn, fresh or stale, gets one more on its stuck-loop counter (spec G3).
     *
     * @return the keys of the lanes marked by this sweep
     */
    List<SessionKey> recoverInterrupted(FreshnessWindow window, Instant now);
}
