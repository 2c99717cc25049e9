package dev.herald.core.gateway;

import dev.herald.core.session.ResumeReason;

/** Why the gateway stops: for good, or to come back. Decides the banner wording and the resume reason. */
public enum StopKind {
    SHUTDOWN("\u26a0\ufe0f Gateway shutting down \u2014 Your current task will be interrupted.", ResumeReason.SHUTDOWN_TIMEOUT,
            "gateway shutdown"),
    RESTART("\u26a0\ufe0f Gateway restarting \u2014 Your current task will be interrupted. Send any message after restart "
            + "and I'll try to resume where you left off.", ResumeReason.RESTART_TIMEOUT, "gateway restart");

    private final String banner;
    private final ResumeReason resumeReason;
    private final String interruptReason;

    StopKind(String banner, ResumeReason resumeReason, String interruptReason) {
        this.banner = banner;
        this.resumeReason = resumeReason;
        this.interruptReason = interruptReason;
    }

    /** The notice sent to active chats and home channels (spec E2, E3). */
    public String banner() {
        return banner;
    }

    /** The reason running sessions are marked resume-pending with (spec E1). */
    public ResumeReason resumeReason() {
        return resumeReason;
    }

    public String interruptReason() {
        return interruptReason;
    }
}
