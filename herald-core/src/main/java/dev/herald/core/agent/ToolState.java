package dev.herald.core.agent;

import java.util.Locale;

/**
 * Where one tool call is: running, or how it ended. The same values go to platforms that show progress (the live
 * event) and are read back from a stored tool result ({@link #ofResult}), so a page shows a call the same way
 * while it runs and after a reload: a denied call is "denied", never "done".
 */
public enum ToolState {
    RUNNING,
    /** It ran and worked. */
    OK,
    /** It ran, or was refused before running, and failed. */
    ERROR,
    /** It needed an approval that was not given (denied, timed out, not allowed here); it did not run. */
    DENIED,
    /** The turn was stopped while it ran or before it started. */
    INTERRUPTED;

    public boolean finished() {
        return this != RUNNING;
    }

    /** {@code ok}, {@code denied}, ...: the name pages and events use. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * How a call ended, from the result text the model read: results start with {@code Error:},
     * {@code Interrupted:} or {@code Denied} when they are not a success (the agent writes them so).
     */
    public static ToolState ofResult(String text) {
        if (text == null) {
            return ERROR;
        }
        if (text.startsWith("Interrupted:")) {
            return INTERRUPTED;
        }
        if (text.startsWith("Denied")) {
            return DENIED;
        }
        if (text.startsWith("Error:")) {
            return ERROR;
        }
        return OK;
    }
}
