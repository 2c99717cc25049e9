package dev.herald.core.session;

/**
 * Why a lane was suspended (stored with the suspension, shown by {@code /status} and the admin page).
 * A suspended lane's next message starts a fresh session, whatever the reason.
 */
public enum SuspendReason {
    /** Someone in the chat sent {@code /stop}. */
    STOP_COMMAND("stop_command", "stopped with /stop in the chat"),
    /** Its turns were cut off by too many stops or crashes in a row (spec E4, G3). */
    STUCK_LOOP("stuck_loop", "interrupted by several stops or crashes in a row (likely a stuck loop)"),
    /** An operator suspended it (admin page or API). */
    OPERATOR("operator", "suspended by an operator"),
    /** Suspended by a Herald version that did not record reasons. */
    UNRECORDED("unrecorded", "suspended before Herald recorded reasons");

    private final String code;
    private final String description;

    SuspendReason(String code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The stable code stored in the database and shown in JSON. */
    public String code() {
        return code;
    }

    /** One line for people. */
    public String description() {
        return description;
    }

    public static SuspendReason fromCode(String code) {
        for (SuspendReason r : values()) {
            if (r.code.equals(code)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown suspend reason '" + code + "'");
    }
}
