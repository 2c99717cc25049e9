package dev.herald.core.platform;

/** What an outbound message is, so adapters can treat notices differently from conversation. */
public enum MessageKind {
    /** The final reply of a turn (at most one per turn, recorded in the outbox). */
    REPLY,
    /**
     * The final reply of a turn whose answer broke off (outcome {@code partial}): the part that came, ending with a
     * notice that it is incomplete. Shown like a {@link #REPLY}; a platform that can mark an answer as failed (the API
     * server's error event) does so.
     */
    CUT_OFF_REPLY,
    /** An inline answer to a control command such as /status. */
    COMMAND_RESPONSE,
    /** A gateway notice: restart and shutdown banners, start-up confirmations. */
    NOTICE,
    /** A question for the user, such as a tool approval. */
    PROMPT,
    /** The turn failed; the text says why in words a user can act on (never a secret). */
    ERROR;

    /** A turn's answer (a reply, whole or cut off, or its error): relayed where the platform relays replies, kept for redelivery. */
    public boolean isAnswer() {
        return this == REPLY || this == CUT_OFF_REPLY || this == ERROR;
    }
}
