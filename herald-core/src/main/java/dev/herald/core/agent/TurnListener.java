package dev.herald.core.agent;

/**
 * Receives what a turn produces as it happens. The gateway implements it: {@link #onMessage} appends
 * the message to the transcript before it returns (durable before visible), {@link #onDelta} forwards
 * partial text to platforms that stream.
 */
public interface TurnListener {

    /** A complete assistant or tool message; stored durably before this returns. */
    void onMessage(ChatMessage message);

    /** Partial assistant text as the model streams it; best-effort, never stored. */
    default void onDelta(String text) {
    }

    /** Token usage reported by the model for one call. */
    default void onUsage(long inputTokens, long outputTokens) {
    }

    TurnListener NONE = message -> {
    };
}
