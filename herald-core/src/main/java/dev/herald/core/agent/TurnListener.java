package dev.herald.core.agent;

/**
 * Receives what a turn produces as it happens. The gateway implements it: {@link #onMessage} appends
 * the message to the transcript before it returns (durable before visible), {@link #onDelta} forwards
 * partial text to platforms that stream.
 */
public interface TurnListener {

    /** A complete assistant or tool message; stored durably before this returns. */
    void onMessage(ChatMessage message);

    /** Partial assistant text as the model streams it; best-effort, never stored. */
    /**
     * The agent sends {@code file} to the chat with its reply ({@code send_file}); the gateway records it with the reply
     * and delivers it after the reply's text. The default (a caller that delivers no files) ignores it.
     */
    default void onFile(dev.herald.core.platform.OutboundFile file) {
    }

    default void onDelta(String text) {
    }

    /**
     * True when {@link #onDelta} text reaches a person as it arrives (a chat that streams its edits, an API client reading
     * an event stream); false (the default) when it is dropped or only measured. Until an answer's text was shown, a
     * model stream that breaks off is asked again; once it was shown, the answer is delivered as it stands with a notice
     * that it was cut off ({@link dev.herald.core.turn.TurnOutcome.Partial}), since a second answer would repeat
     * what the person already read.
     */
    default boolean showsDeltas() {
        return false;
    }

    /** Token usage reported by the model for one call. */
    default void onUsage(long inputTokens, long outputTokens) {
    }

    /**
     * A tool call started ({@link ToolState#RUNNING}) or ended (ran, failed, was denied or stopped), for platforms that
     * show progress; best-effort. A denied call reports only its end.
     *
     * @param callId   the tool call's id (as in the assistant message), so an end can be matched with its start
     * @param toolName the tool
     * @param summary  a short, secret-free line saying what the call does
     * @param state    running, or how it ended
     */
    default void onToolActivity(String callId, String toolName, String summary, ToolState state) {
    }

    /**
     * Asks the chat to approve a dangerous tool call; blocks until someone answers, the approval times
     * out, or the turn's interrupt is raised. Where nobody can answer, the configured policy decides.
     */
    default ApprovalDecision requestApproval(ApprovalRequest request) {
        return ApprovalDecision.DENIED_NON_INTERACTIVE;
    }

    /**
     * Whether a dangerous call can be approved in this turn at all: someone is there to answer, or the policy allows
     * dangerous calls without a user. False (the default, as {@link #requestApproval} denies): a tool whose every call
     * asks is then not worth offering to a caller that brings its own tools.
     */
    default boolean canApprove() {
        return false;
    }

    /**
     * Whether the turn's sender may approve dangerous calls at all; when not, tools that always ask (shell) are not offered
     * and any other approval is {@link ApprovalDecision#DENIED_NOT_ALLOWED}. By default every sender may.
     */
    default boolean senderMayApprove() {
        return true;
    }

    /**
     * The agent summarized the history: the gateway ends the current transcript with reason
     * {@code compression} and continues in a child session that starts with the summary and the kept
     * messages; later {@link #onMessage} calls append to the child. Returns the child's session id.
     */
    default String onCompaction(Compaction compaction) {
        throw new UnsupportedOperationException("this turn cannot be compacted");
    }

    /**
     * The messages the user sent to steer this turn since the last call ({@code /steer}), already stored as user rows:
     * the agent adds them to what the model reads before its next call. Empty (the default) when there are none.
     */
    default java.util.List<ChatMessage> steering() {
        return java.util.List.of();
    }

    TurnListener NONE = message -> {
    };
}
