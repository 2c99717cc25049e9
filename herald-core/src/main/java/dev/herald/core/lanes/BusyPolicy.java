package dev.herald.core.lanes;

/** What a message for a session with a running turn does. */
public enum BusyPolicy {
    /** Wait behind the running turn (default). */
    QUEUE,
    /** Interrupt the running turn, then run. */
    INTERRUPT
}
