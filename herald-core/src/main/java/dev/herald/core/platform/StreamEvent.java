package dev.herald.core.platform;

/** Progress of a running turn, for platforms that show it as it happens. */
public sealed interface StreamEvent {

    /** More assistant text. */
    record TextDelta(String text) implements StreamEvent {
    }

    /** A tool started; {@code summary} is a short, secret-free description. */
    record ToolStarted(String toolName, String summary) implements StreamEvent {
    }

    /** A tool finished. */
    record ToolFinished(String toolName, boolean ok) implements StreamEvent {
    }
}
