package dev.herald.core.platform;

/**
 * What the gateway did with an inbound event; the adapter acknowledges to its platform after any of these but the two
 * rejections, after which the platform should deliver the message again.
 */
public enum Admission {
    /** Stored durably; a turn will run (now, or after the turns ahead of it). */
    ACCEPTED,
    /** Answered inline (a control command, a pairing prompt); no turn. */
    ANSWERED,
    /** The platform delivered this message id before; dropped. */
    DUPLICATE,
    /** The sender is not allowed to talk to the agent; nothing stored. */
    REFUSED,
    /** The gateway is stopping and takes no new turns; nothing stored, the platform may redeliver. */
    REJECTED_STOPPING,
    /**
     * The store cannot take writes now (the disk is full, the database is unreachable; {@code Storage#health()} says why):
     * nothing stored. The adapter leaves the message unacknowledged so its platform redelivers it (or holds it and hands it
     * over again, where the platform has no acknowledgement), and keeps running; a request is answered 503 with
     * Retry-After.
     */
    REJECTED_UNAVAILABLE
}
