package dev.herald.core.session;

import java.util.Objects;
import java.util.Set;

/**
 * Why a session is resume-pending. Three reasons are the gateway's own and are auto-resumed at
 * start-up (spec G5); any other reason (for example a manual mark) resumes only when the user writes.
 */
public record ResumeReason(String code) {
    /** A restart's drain timed out while the turn was running. */
    public static final ResumeReason RESTART_TIMEOUT = new ResumeReason("restart_timeout");
    /** A shutdown's drain timed out while the turn was running. */
    public static final ResumeReason SHUTDOWN_TIMEOUT = new ResumeReason("shutdown_timeout");
    /** The process died (crash, kill -9, power loss) while the turn was in flight. */
    public static final ResumeReason RESTART_INTERRUPTED = new ResumeReason("restart_interrupted");

    private static final Set<ResumeReason> AUTO_RESUMED = Set.of(RESTART_TIMEOUT, SHUTDOWN_TIMEOUT, RESTART_INTERRUPTED);

    public ResumeReason {
        Objects.requireNonNull(code, "code");
        if (code.isBlank() || code.length() > 64) {
            throw new IllegalArgumentException("resume reason must be 1-64 characters");
        }
    }

    /** The reason code as stored; a missing one reads as {@link #RESTART_TIMEOUT}. */
    public static ResumeReason ofNullable(String code) {
        return code == null || code.isBlank() ? RESTART_TIMEOUT : new ResumeReason(code);
    }

    public boolean autoResumes() {
        return AUTO_RESUMED.contains(this);
    }

    @Override
    public String toString() {
        return code;
    }
}
