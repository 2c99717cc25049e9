package dev.herald.core.turn;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import java.time.Instant;
import java.util.Objects;

/**
 * The durable record of one turn: the event that asked for it, where it is in its lifecycle, and its reply.
 *
 * @param id                the turn's id (increasing in arrival order)
 * @param sessionKey        the lane
 * @param eventId           Herald's id of the inbound event
 * @param source            who asked, where (used to re-check authorization and to deliver)
 * @param text              the user's text as received (empty for a resume turn)
 * @param platformMessageId the platform's message id, or null
 * @param replyToMessageId  the platform message the user's message answered, or null
 * @param origin            user or resume
 * @param state             the lifecycle state
 * @param sessionId         the transcript session the turn ran in; null until it starts
 * @param outcome           the outcome kind ({@code final}, {@code interrupted}, ...), or null until known
 * @param error             what ended a FAILED turn (for the operator: log, admin page), or null
 * @param reply             the final reply recorded for delivery, or null
 * @param replyMessageId    the platform's id of the delivered reply, or null
 * @param receivedAt        when the event was stored
 * @param updatedAt         when the state last changed (or the last delivery attempt failed)
 * @param partsDelivered    how many parts of a split reply the platform confirmed (redelivery starts after them)
 * @param sendingPart       the part (1-based) whose send was recorded as about to happen and whose answer was not
 *                          recorded yet, else 0: after a crash, that part is in doubt (it may have reached the chat)
 * @param partMessageIds    the platform's ids of the confirmed parts before the last (the last one's is
 *                          {@code replyMessageId})
 * @param deliveryAttempts  failed delivery attempts so far
 * @param deliveryError     the last delivery failure, or null
 * @param inputTokens       model input tokens this turn used (all its model calls)
 * @param outputTokens      model output tokens this turn used
 * @param ownerNode         the node that received the turn, then the node that runs and delivers it; null for turns
 *                          stored before nodes were recorded
 * @param attachments       the files the message carried, as the platform described them; empty when none
 * @param replyFiles        the files the agent sent with its reply ({@code send_file}), delivered as parts after the
 *                          reply's text; empty when none
 */
public record TurnRecord(
        long id,
        SessionKey sessionKey,
        String eventId,
        SessionSource source,
        String text,
        String platformMessageId,
        String replyToMessageId,
        MessageEvent.Origin origin,
        TurnState state,
        String sessionId,
        String outcome,
        String error,
        String reply,
        String replyMessageId,
        Instant receivedAt,
        Instant updatedAt,
        int partsDelivered,
        int sendingPart,
        java.util.List<String> partMessageIds,
        int deliveryAttempts,
        String deliveryError,
        long inputTokens,
        long outputTokens,
        String ownerNode,
        java.util.List<MessageEvent.MediaRef> attachments,
        java.util.List<dev.herald.core.platform.OutboundFile> replyFiles) {

    public TurnRecord {
        Objects.requireNonNull(sessionKey, "sessionKey");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(receivedAt, "receivedAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        text = text == null ? "" : text;
        partMessageIds = partMessageIds == null ? java.util.List.of() : java.util.List.copyOf(partMessageIds);
        attachments = attachments == null ? java.util.List.of() : java.util.List.copyOf(attachments);
        replyFiles = replyFiles == null ? java.util.List.of() : java.util.List.copyOf(replyFiles);
    }

    /** A turn whose reply carries no files. */
    public TurnRecord(long id, SessionKey sessionKey, String eventId, SessionSource source, String text, String platformMessageId,
            String replyToMessageId, MessageEvent.Origin origin, TurnState state, String sessionId, String outcome, String error,
            String reply, String replyMessageId, Instant receivedAt, Instant updatedAt, int partsDelivered, int sendingPart,
            java.util.List<String> partMessageIds, int deliveryAttempts, String deliveryError, long inputTokens, long outputTokens,
            String ownerNode, java.util.List<MessageEvent.MediaRef> attachments) {
        this(id, sessionKey, eventId, source, text, platformMessageId, replyToMessageId, origin, state, sessionId, outcome, error,
                reply, replyMessageId, receivedAt, updatedAt, partsDelivered, sendingPart, partMessageIds, deliveryAttempts,
                deliveryError, inputTokens, outputTokens, ownerNode, attachments, java.util.List.of());
    }

    /** A turn whose message carried no attachments. */
    public TurnRecord(long id, SessionKey sessionKey, String eventId, SessionSource source, String text, String platformMessageId,
            String replyToMessageId, MessageEvent.Origin origin, TurnState state, String sessionId, String outcome, String error,
            String reply, String replyMessageId, Instant receivedAt, Instant updatedAt, int partsDelivered, int sendingPart,
            java.util.List<String> partMessageIds, int deliveryAttempts, String deliveryError, long inputTokens, long outputTokens,
            String ownerNode) {
        this(id, sessionKey, eventId, source, text, platformMessageId, replyToMessageId, origin, state, sessionId, outcome, error,
                reply, replyMessageId, receivedAt, updatedAt, partsDelivered, sendingPart, partMessageIds, deliveryAttempts,
                deliveryError, inputTokens, outputTokens, ownerNode, java.util.List.of(), java.util.List.of());
    }

    /** A turn with no error and no delivery history yet. */
    public TurnRecord(long id, SessionKey sessionKey, String eventId, SessionSource source, String text, String platformMessageId,
            String replyToMessageId, MessageEvent.Origin origin, TurnState state, String sessionId, String outcome, String reply,
            String replyMessageId, Instant receivedAt, Instant updatedAt) {
        this(id, sessionKey, eventId, source, text, platformMessageId, replyToMessageId, origin, state, sessionId, outcome, null,
                reply, replyMessageId, receivedAt, updatedAt, 0, 0, null, 0, null, 0, 0, null);
    }

    /**
     * The platform message this turn's reply answers: the user's message, for a resume turn the message of the
     * turn it continues (null when unknown), for a scheduled job's run none (Herald wrote its message).
     */
    public String answersMessageId() {
        return switch (origin) {
            case USER -> platformMessageId;
            case RESUME -> replyToMessageId;
            case SCHEDULE -> null;
        };
    }
}
