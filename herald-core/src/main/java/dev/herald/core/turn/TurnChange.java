package dev.herald.core.turn;

import dev.herald.core.transcript.TranscriptRow;

/**
 * What a transition writes besides the state, each field only when not null: the transcript session and
 * the user's row a turn starts with, the outcome kind, the reply to deliver, the platform's id of the sent
 * reply, the error that ended a failed turn, and the platform's refusal of an undeliverable reply.
 */
public record TurnChange(String sessionId, TranscriptRow userRow, String outcome, String reply, String replyMessageId,
        String error, String deliveryError) {

    static TurnChange start(String sessionId, TranscriptRow userRow) {
        return new TurnChange(sessionId, userRow, null, null, null, null, null);
    }

    static TurnChange outcome(String outcome) {
        return new TurnChange(null, null, outcome, null, null, null, null);
    }

    static TurnChange reply(String outcome, String reply) {
        return new TurnChange(null, null, outcome, reply, null, null, null);
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
