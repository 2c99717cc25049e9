package dev.herald.core.gateway;

/** How {@code herald restart}, SIGUSR1 and /restart restart the gateway. */
public enum RestartMode {
    /** Start the new process first; the old one stops listening, finishes its running turns and delivers, then exits. */
    HANDOVER,
    /** Drain the old process (turns still running at the drain timeout are cut off), then start the new one. */
    DRAIN
}
