package dev.herald.core.platform;

import java.util.Objects;

/**
 * One message the gateway asks an adapter to send.
 *
 * @param target           chat and thread
 * @param text             the text; already split to the platform's limit
 * @param kind             reply, command response, notice or prompt
 * @param replyToMessageId the platform message this answers, or null
 * @param correlationId    the id of the inbound event this answers (the {@link MessageEvent#eventId()}),
 *                         or null for messages nobody asked for; request/response platforms use it
 *                         to find the waiting caller
 * @param part             1-based index of this part when a reply was split, else 1
 * @param parts            number of parts the reply was split into, else 1
 * @param idempotencyKey   the same for every attempt to send this part of this reply, after a crash too, or null for
 *                         messages that are not recorded; a platform that can deduplicate sends by a key (Discord's
 *                         {@code nonce} with {@code enforce_nonce}) passes it on, so a resend is not a second message
 * @param file             the file this part sends, with {@code text} as its caption (may be empty), or null for text; the
 *                         outbox sends one only to a platform whose {@link Capabilities#files()} says it can, within
 *                         {@link Capabilities#maxFileBytes()}
 */
public record OutboundMessage(
        ChatTarget target, String text, MessageKind kind, String replyToMessageId, String correlationId, int part, int parts,
        String idempotencyKey, OutboundFile file) {

    /** A text message. */
    public OutboundMessage(ChatTarget target, String text, MessageKind kind, String replyToMessageId, String correlationId, int part,
            int parts, String idempotencyKey) {
        this(target, text, kind, replyToMessageId, correlationId, part, parts, idempotencyKey, null);
    }

    /** A message without an idempotency key. */
    public OutboundMessage(ChatTarget target, String text, MessageKind kind, String replyToMessageId, String correlationId, int part,
            int parts) {
        this(target, text, kind, replyToMessageId, correlationId, part, parts, null);
    }

    public OutboundMessage {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(kind, "kind");
        if (part < 1 || parts < 1 || part > parts) {
            throw new IllegalArgumentException("part " + part + " of " + parts + " is not a valid split position");
        }
    }

    public static OutboundMessage notice(ChatTarget target, String text) {
        return new OutboundMessage(target, text, MessageKind.NOTICE, null, null, 1, 1);
    }

    public boolean isLastPart() {
        return part == parts;
    }
}
