package dev.herald.core.platform;

/** What an outbound message is, so adapters can treat notices differently from conversation. */
public enum MessageKind {
    /** The final reply of a turn (at most one per turn, recorded in the outbox). */
    REPLY,
    /** An inline answer to a control command such as /status. */
    COMMAND_RESPONSE,
    /** A gateway notice: restart and shutdown banners, start-up confirmations. */
    NOTICE,
    /** A question for the user, such as a tool approval. */
    PROMPT,
    /** The turn failed; the text says why in words a user can act on (never a secret). */
    ERROR
}
