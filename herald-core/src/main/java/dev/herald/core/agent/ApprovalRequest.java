package dev.herald.core.agent;

import java.util.Objects;

/**
 * A dangerous tool call waiting for a person's yes or no.
 *
 * @param toolCallId the call's id
 * @param toolName   the tool
 * @param summary    what it would do, short and free of secrets (for example the command line)
 * @param reason     why it counts as dangerous (for example "runs a shell command")
 */
public record ApprovalRequest(String toolCallId, String toolName, String summary, String reason) {
    public ApprovalRequest {
        Objects.requireNonNull(toolCallId, "toolCallId");
        Objects.requireNonNull(toolName, "toolName");
        summary = summary == null ? "" : summary;
        reason = reason == null ? "" : reason;
    }
}
