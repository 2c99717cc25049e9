package dev.herald.agent.tool;

import dev.herald.core.agent.ToolState;
import java.util.Objects;

/**
 * What one tool call produced, as the model will read it.
 *
 * @param text   the result text (errors start with {@code Error:}, cut-off calls with {@code Interrupted:}, calls
 *               that were not approved with {@code Denied}: {@link ToolState#ofResult} reads the outcome back from it)
 * @param status whether it worked, failed, was denied or was cut off
 */
public record ToolResult(String text, Status status) {

    /** How the call ended. */
    public enum Status {
        OK,
        ERROR,
        DENIED,
        INTERRUPTED;

        /** The same outcome as the core's {@link ToolState}. */
        public ToolState state() {
            return switch (this) {
                case OK -> ToolState.OK;
                case ERROR -> ToolState.ERROR;
                case DENIED -> ToolState.DENIED;
                case INTERRUPTED -> ToolState.INTERRUPTED;
            };
        }
    }

    public ToolResult {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(status, "status");
    }

    public static ToolResult ok(String text) {
        return new ToolResult(text, Status.OK);
    }

    /** A failure the model can act on; {@code Error: } is prefixed when missing. */
    public static ToolResult error(String text) {
        return new ToolResult(text.startsWith("Error:") ? text : "Error: " + text, Status.ERROR);
    }

    /** A call that needed an approval it did not get; {@code Denied: } is prefixed unless the text starts with {@code Denied}. */
    public static ToolResult denied(String text) {
        return new ToolResult(text.startsWith("Denied") ? text : "Denied: " + text, Status.DENIED);
    }

    /** A call cut off by the turn's interrupt; {@code Interrupted: } is prefixed when missing. */
    public static ToolResult interrupted(String text) {
        return new ToolResult(text.startsWith("Interrupted:") ? text : "Interrupted: " + text, Status.INTERRUPTED);
    }

    public boolean ok() {
        return status == Status.OK;
    }
}
