package dev.herald.core.turn;

/**
 * How a turn ended. Exactly one variant per turn; {@link #clearsResumePending()} decides whether a
 * resume mark may be cleared afterwards (spec A1): only a turn that succeeded clears it.
 */
public sealed interface TurnOutcome {

    /** True when the turn succeeded (a final answer, or explicitly completed). */
    boolean clearsResumePending();

    /** The text to deliver to the user, or null when there is nothing to deliver. */
    default String replyText() {
        return null;
    }

    /** A short lower-case name for logs, metrics and the turn table. */
    String kind();

    /** The model produced a final answer. */
    record Final(String reply) implements TurnOutcome {
        public boolean clearsResumePending() {
            return true;
        }

        public String replyText() {
            return reply;
        }

        public String kind() {
            return "final";
        }
    }

    /** The turn finished its work but has nothing to say (for example a silent internal turn). */
    record Completed() implements TurnOutcome {
        public boolean clearsResumePending() {
            return true;
        }

        public String kind() {
            return "completed";
        }
    }

    /** The turn was cut off (/stop, shutdown, interrupt policy). */
    record Interrupted(String reason) implements TurnOutcome {
        public boolean clearsResumePending() {
            return false;
        }

        public String kind() {
            return "interrupted";
        }
    }

    /** The turn stopped before finishing, for example at the iteration limit. */
    record NotCompleted(String why, String partialReply) implements TurnOutcome {
        public boolean clearsResumePending() {
            return false;
        }

        public String replyText() {
            return partialReply;
        }

        public String kind() {
            return "not_completed";
        }
    }

    /** The agent gave up: the model refused or kept failing. */
    record Failed(String why) implements TurnOutcome {
        public boolean clearsResumePending() {
            return false;
        }

        public String replyText() {
            return why;
        }

        public String kind() {
            return "failed";
        }
    }

    /**
     * The model's answer broke off (its stream dropped, stalled or ended early) after part of it was produced. The
     * user gets that part followed by {@code notice}, which says it is incomplete and how to get a whole answer, so a
     * truncated answer never passes for a complete one.
     *
     * @param partialReply the answer as far as it came
     * @param notice       what the user reads after it: that it was cut off, and to send the message again
     * @param why          the operator's account (log, turn record), which may name the model's endpoint
     */
    record Partial(String partialReply, String notice, String why) implements TurnOutcome {
        /** The notice when the agent gives none. */
        public static final String NOTICE = "(This answer was cut off before the end. Send your message again for a complete answer.)";

        public Partial {
            partialReply = partialReply == null ? "" : partialReply;
            notice = notice == null || notice.isBlank() ? NOTICE : notice.strip().replace("\n\n", "\n");
        }

        /** A partial reply with the default notice. */
        public Partial(String partialReply, String why) {
            this(partialReply, NOTICE, why);
        }

        public boolean clearsResumePending() {
            return false;
        }

        /** The part that came, then the notice as its own last paragraph ({@link #noticeOf}). */
        public String replyText() {
            return partialReply.isBlank() ? notice : partialReply.stripTrailing() + "\n\n" + notice;
        }

        /** The notice of a cut-off reply's text (its last paragraph), for a platform that shows it apart from the text. */
        public static String noticeOf(String replyText) {
            int at = replyText.lastIndexOf("\n\n");
            return at < 0 ? replyText : replyText.substring(at + 2);
        }

        public String kind() {
            return "partial";
        }
    }

    /**
     * An error ended the turn (model unreachable, unexpected exception). {@code error} is what the chat user
     * reads, so it never names the model's URL, host or port; {@code detail} is the operator's version
     * (log, admin page), which may.
     */
    record Errored(String error, String detail) implements TurnOutcome {
        /** An error whose text is fit for the user and the operator alike. */
        public Errored(String error) {
            this(error, error);
        }

        public boolean clearsResumePending() {
            return false;
        }

        public String replyText() {
            return error;
        }

        public String kind() {
            return "error";
        }
    }

    /**
     * The model called tools its caller runs itself ({@link dev.herald.core.agent.TurnOptions#clientTools()}): the
     * turn ends here and the caller's next request, carrying the results, continues it. Only the API server's
     * stateless requests offer such tools.
     *
     * @param content what the model wrote with the calls; may be empty
     * @param calls   the calls, in order; never empty
     */
    record ToolCallsRequested(String content, java.util.List<dev.herald.core.transcript.ToolCall> calls) implements TurnOutcome {
        public ToolCallsRequested {
            content = content == null ? "" : content;
            calls = java.util.List.copyOf(calls);
        }

        public boolean clearsResumePending() {
            return true;
        }

        public String kind() {
            return "tool_calls";
        }
    }
}
