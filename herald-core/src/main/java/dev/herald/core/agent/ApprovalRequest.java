package dev.herald.core.agent;

import java.util.Objects;

/**
 * A dangerous tool call waiting for a person's yes or no.
 *
 * @param toolCallId the call's id
 * @param toolName   the tool
 * @param summary    what it would do, short and free of secrets (for example the command line)
 * @param reason     why it counts as dangerous (for example "runs a shell command")
 * @param detail     everything the person must see to decide, shown with the question: the whole command, the
 *                   resolved path, a preview of what would be written; never clipped (the agent refuses to ask
 *                   about calls too long to show)
 */
public record ApprovalRequest(String toolCallId, String toolName, String summary, String reason, String detail) {
    public ApprovalRequest {
        Objects.requireNonNull(toolCallId, "toolCallId");
        Objects.requireNonNull(toolName, "toolName");
        summary = summary == null ? "" : summary;
        reason = reason == null ? "" : reason;
        detail = detail == null || detail.isEmpty() ? summary : detail;
    }

    /** A request whose detail is its summary. */
    public ApprovalRequest(String toolCallId, String toolName, String summary, String reason) {
        this(toolCallId, toolName, summary, reason, null);
    }
}
