package dev.herald.core.gateway;

import dev.herald.core.session.ResumeReason;

/** Why the gateway stops: for good, to come back, or handing over to a process that runs already. Decides the banner wording and the resume reason. */
public enum StopKind {
    SHUTDOWN("\u26a0\ufe0f Gateway shutting down \u2014 Your current task will be interrupted.", ResumeReason.SHUTDOWN_TIMEOUT,
            "gateway shutdown"),
    RESTART("\u26a0\ufe0f Gateway restarting \u2014 Your current task will be interrupted. Send any message after restart "
            + "and I'll try to resume where you left off.", ResumeReason.RESTART_TIMEOUT, "gateway restart"),
    /**
     * A restart that hands over: a new process already runs and takes new work; this one finishes what it runs. Only a
     * chat whose turn is still running at the drain timeout is told (its turn is cut off and resumed at once by the new
     * process); nobody else hears of the restart.
     */
    HANDOVER("\u26a0\ufe0f Gateway restarting \u2014 Your current task was interrupted; the restarted gateway picks it up "
            + "where it left off.", ResumeReason.RESTART_TIMEOUT, "gateway restart");

    private final String banner;
    private final ResumeReason resumeReason;
    private final String interruptReason;

    StopKind(String banner, ResumeReason resumeReason, String interruptReason) {
        this.banner = banner;
        this.resumeReason = resumeReason;
        this.interruptReason = interruptReason;
    }

    /** The notice sent to active chats and home channels (spec E2, E3); on a handover, to the chats whose turn is cut off. */
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
