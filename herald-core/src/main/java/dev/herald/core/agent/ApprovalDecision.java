package dev.herald.core.agent;

/** The answer to an {@link ApprovalRequest}. Only the two approvals let the call run. */
public enum ApprovalDecision {
    /** Run this call. */
    APPROVED_ONCE,
    /** Run this call and every later call of the same tool in this session without asking. */
    APPROVED_ALWAYS,
    /** The user said no. */
    DENIED,
    /** Nobody answered within the approval timeout. */
    TIMED_OUT,
    /** Nobody can answer on this platform, and the configured policy denies. */
    DENIED_NON_INTERACTIVE,
    /** The turn was interrupted while waiting (stop, restart); the call did not run. */
    INTERRUPTED,
    /** The sender may not approve dangerous calls here (a web account that is not an admin); nobody was asked. */
    DENIED_NOT_ALLOWED;

    public boolean approved() {
        return this == APPROVED_ONCE || this == APPROVED_ALWAYS;
    }

    /** What the model is told when the call did not run. */
    public String toolResultText() {
        return switch (this) {
            case APPROVED_ONCE, APPROVED_ALWAYS -> "";
            case DENIED -> "Denied: the user did not approve this call. It was not run.";
            case TIMED_OUT -> "Denied: nobody approved this call in time. It was not run.";
            case DENIED_NON_INTERACTIVE -> "Denied: dangerous tools are not allowed on this non-interactive platform. It was not run.";
            case INTERRUPTED -> "Denied because the gateway restarted (or the turn was stopped) before anyone approved this call. It was not run.";
            case DENIED_NOT_ALLOWED -> "Denied: this user may not approve dangerous tools (commands, files outside the conversation's "
                    + "folder); an admin of this Herald decides that. It was not run; do the task without it or say what is needed.";
        };
    }
}
