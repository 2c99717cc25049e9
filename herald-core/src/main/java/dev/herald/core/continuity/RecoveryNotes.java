package dev.herald.core.continuity;

import dev.herald.core.session.ResumeReason;

/**
 * The system notes that tell the model a turn was cut off. Their wording is a contract (spec G1):
 * models have been prompted with these exact texts, so change them only together with the spec. The note for a
 * scheduled task ({@link #taskNote}) is Herald's own (the spec has no scheduled tasks); it shares the spec's
 * sentences where it can.
 */
public final class RecoveryNotes {

    /** Prefix added when the history ends with tool results from an interrupted turn (spec C3). */
    public static final String TOOL_TAIL_NOTE = "[System note: A new message has arrived. The conversation history "
            + "contains pending tool outputs from an interrupted turn. IGNORE those pending results. Address the "
            + "user's NEW message below FIRST. Do NOT re-execute old tool calls from the history.]";

    private static final String WITH_MESSAGE_GUIDANCE =
            "Address the user's NEW message below FIRST and focus on what the user is asking now.";
    private static final String INTERACTIVE_EMPTY_GUIDANCE =
            "Report to the user that the session was restored successfully and ask what they would like to do next.";
    private static final String NON_INTERACTIVE_EMPTY_GUIDANCE = "No user is present on this non-interactive platform, "
            + "so do NOT emit a 'session restored' acknowledgement or ask questions. Review the conversation history "
            + "and CONTINUE the interrupted task to completion.";
    private static final String SKIP_TAIL_GUIDANCE =
            "Do NOT re-execute old tool calls \u2014 skip any unfinished work from the conversation history.";
    private static final String RESUME_TAIL_GUIDANCE = "Do NOT re-run tool calls whose results already appear in the "
            + "history \u2014 resume from the first step that has no recorded result.";

    private RecoveryNotes() {
    }

    /**
     * The restart recovery note for a resume-pending session, followed by a blank line and the user's
     * message when there is one.
     *
     * @param reason      why the session is resume-pending (null reads as restart_timeout)
     * @param message     the user's message; empty for an automatic resume turn
     * @param interactive whether someone is there to answer; decides what an empty turn asks the model to do
     */
    public static String resumeNote(ResumeReason reason, String message, boolean interactive) {
        String text = message == null ? "" : message;
        boolean hasMessage = !text.isEmpty();
        String resumeGuidance;
        String tailGuidance;
        if (hasMessage) {
            resumeGuidance = WITH_MESSAGE_GUIDANCE;
            tailGuidance = SKIP_TAIL_GUIDANCE;
        } else if (interactive) {
            resumeGuidance = INTERACTIVE_EMPTY_GUIDANCE;
            tailGuidance = SKIP_TAIL_GUIDANCE;
        } else {
            resumeGuidance = NON_INTERACTIVE_EMPTY_GUIDANCE;
            tailGuidance = RESUME_TAIL_GUIDANCE;
        }
        String note = "[System note: The previous turn was interrupted by " + reasonPhrase(reason)
                + "; the gateway is now back online. Any restart/shutdown command in the history has already run "
                + "\u2014 do NOT re-execute or verify it. " + resumeGuidance + " " + tailGuidance + "]";
        return hasMessage ? note + "\n\n" + text : note;
    }

    /**
     * The note that resumes a scheduled task a stop, crash or takeover cut off after some of its work was recorded,
     * followed by a blank line and the task as it was first given. Nobody asked for the turn, so unlike the
     * interactive restart note it never asks the model to report the restore or ask what to do next: the task's result
     * is what its chat is waiting for.
     *
     * @param reason why the session is resume-pending (null reads as restart_timeout)
     * @param task   the scheduled turn's text ({@code [Scheduled task <job> (...), due ...] <prompt>})
     */
    public static String taskNote(ResumeReason reason, String task) {
        return "[System note: The scheduled task below was interrupted by " + reasonPhrase(reason)
                + "; the gateway is now back online. Any restart/shutdown command in the history has already run "
                + "\u2014 do NOT re-execute or verify it. This turn is the scheduled task, not a message from a user: do NOT "
                + "announce the restart and do NOT ask questions. CONTINUE the scheduled task to completion "
                + "and answer with its result. " + RESUME_TAIL_GUIDANCE + "]\n\n" + (task == null ? "" : task);
    }

    /** The tool-tail note followed by a blank line and the message (spec C3). */
    public static String toolTailNote(String message) {
        return TOOL_TAIL_NOTE + "\n\n" + (message == null ? "" : message);
    }

    static String reasonPhrase(ResumeReason reason) {
        ResumeReason r = reason == null ? ResumeReason.RESTART_TIMEOUT : reason;
        if (r.equals(ResumeReason.RESTART_TIMEOUT)) {
            return "a gateway restart";
        }
        if (r.equals(ResumeReason.SHUTDOWN_TIMEOUT)) {
            return "a gateway shutdown";
        }
        return "a gateway interruption";
    }
}
