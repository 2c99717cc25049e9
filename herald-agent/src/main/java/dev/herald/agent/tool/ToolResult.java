package dev.herald.agent.tool;

import java.util.Objects;

/**
 * What one tool call produced, as the model will read it.
 *
 * @param text   the result text (errors start with {@code Error:}, cut-off calls with {@code Interrupted:})
 * @param status whether it worked, failed or was cut off
 */
public record ToolResult(String text, Status status) {

    /** How the call ended. */
    public enum Status {
        OK,
        ERROR,
        INTERRUPTED
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

    /** A call cut off by the turn's interrupt; {@code Interrupted: } is prefixed when missing. */
    public static ToolResult interrupted(String text) {
        return new ToolResult(text.startsWith("Interrupted:") ? text : "Interrupted: " + text, Status.INTERRUPTED);
    }

    public boolean ok() {
        return status == Status.OK;
    }
}
