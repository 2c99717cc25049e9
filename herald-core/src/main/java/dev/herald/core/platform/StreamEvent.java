package dev.herald.core.platform;

/** Progress of a running turn, for platforms that show it as it happens. */
public sealed interface StreamEvent {

    /** The turn is still working: show the typing indicator (sent every few seconds while it runs). */
    record Typing() implements StreamEvent {
        public static final Typing NOW = new Typing();
    }

    /** More assistant text. */
    record TextDelta(String text) implements StreamEvent {
    }

    /** A tool call started; {@code summary} is a short, secret-free description. */
    record ToolStarted(String callId, String toolName, String summary) implements StreamEvent {
    }

    /** A tool call ended: ok, error, denied (it never ran) or interrupted. */
    record ToolFinished(String callId, String toolName, dev.herald.core.agent.ToolState state) implements StreamEvent {
    }

    /** The model reported the token usage of one call of the turn (platforms that answer with usage add them up). */
    record Usage(long inputTokens, long outputTokens) implements StreamEvent {
    }
}
