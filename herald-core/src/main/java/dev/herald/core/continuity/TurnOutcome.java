package dev.herald.core.continuity;

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

    /** Part of a reply was produced before the turn broke off. */
    record Partial(String partialReply, String why) implements TurnOutcome {
        public boolean clearsResumePending() {
            return false;
        }

        public String replyText() {
            return partialReply;
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
