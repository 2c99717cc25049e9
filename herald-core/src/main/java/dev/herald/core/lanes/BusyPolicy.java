package dev.herald.core.lanes;

/** What a message for a session with a running turn does. */
public enum BusyPolicy {
    /** Wait behind the running turn (default). */
    QUEUE,
    /** Interrupt the running turn, then run. */
    INTERRUPT,
    /**
     * Join the running turn: the model reads it before its next call, after the tool call in progress (as {@code /steer}
     * does). When the turn ends before another model call, the message runs as the next turn, as under {@link #QUEUE}.
     */
    STEER;

    /** The mode's name as a chat writes it ({@code /busy steer}). */
    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
