package dev.herald.core.turn;

import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;

/**
 * What a transition writes besides the state, each field only when not null: the transcript session and
 * the user's row a turn starts with, the outcome kind, the reply to deliver, the platform's id of the sent
 * reply, the error that ended a failed turn, and the platform's refusal of an undeliverable reply. {@code withdrawn}
 * (a cancel only) gives the message's platform id back: the sender was told to send it again, and a retry with the same
 * id (an API request id) must be taken as a new message, not dropped as one delivered before. {@code touchedBy} (a
 * start only, may be null) is the origin of the message the turn starts with: the start bumps the lane's row for it in
 * the same transaction ({@code SessionStore.forTurn} left that to the start). {@code sendsFirstPart} (a recorded reply
 * only) records in the same write the send intent of the reply's first part, which its caller sends at once.
 *
 * <p>{@code node}, when not null, is the node making the move (fencing): a START records it as the turn's owner and
 * requires that it holds the session's lease; any other move requires that the turn is the node's (and the node is
 * not gone) or that the turn's owner is gone. Null moves without that check (tests, tools on a stopped store).
 */
public record TurnChange(String sessionId, TranscriptRow userRow, String outcome, String reply, String replyMessageId,
        String error, String deliveryError, String node, boolean withdrawn, SessionSource touchedBy, boolean sendsFirstPart) {

    /** A change made without a node's fence. */
    public TurnChange(String sessionId, TranscriptRow userRow, String outcome, String reply, String replyMessageId, String error,
            String deliveryError) {
        this(sessionId, userRow, outcome, reply, replyMessageId, error, deliveryError, null, false, null, false);
    }

    /** A change made by {@code node} (null: none). */
    public TurnChange(String sessionId, TranscriptRow userRow, String outcome, String reply, String replyMessageId, String error,
            String deliveryError, String node) {
        this(sessionId, userRow, outcome, reply, replyMessageId, error, deliveryError, node, false, null, false);
    }

    /** This change made by {@code byNode}. */
    public TurnChange by(String byNode) {
        return new TurnChange(sessionId, userRow, outcome, reply, replyMessageId, error, deliveryError, byNode, withdrawn, touchedBy,
                sendsFirstPart);
    }

    static TurnChange start(String sessionId, TranscriptRow userRow, SessionSource touchedBy) {
        return new TurnChange(sessionId, userRow, null, null, null, null, null, null, false, touchedBy, false);
    }

    static TurnChange outcome(String outcome) {
        return new TurnChange(null, null, outcome, null, null, null, null);
    }

    static TurnChange withdrawal(String outcome) {
        return new TurnChange(null, null, outcome, null, null, null, null, null, true, null, false);
    }

    static TurnChange reply(String outcome, String reply, boolean sendsFirstPart) {
        return new TurnChange(null, null, outcome, reply, null, null, null, null, false, null, sendsFirstPart);
    }

    static TurnChange failure(String outcome, String error) {
        return new TurnChange(null, null, outcome, null, null, error, null);
    }

    static TurnChange sent(String replyMessageId) {
        return new TurnChange(null, null, null, null, replyMessageId, null, null);
    }

    static TurnChange refused(String deliveryError) {
        return new TurnChange(null, null, null, null, null, null, deliveryError);
    }
}
