package dev.herald.core.transcript;

import dev.herald.core.platform.MessageEvent.MediaRef;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One stored message of a transcript.
 *
 * @param seq        position in its transcript, dense from 1; 0 for a row not stored yet
 * @param role       user, assistant, tool, system or session_meta
 * @param content    the text, possibly empty; null only when a row has tool calls and no text
 * @param toolCalls  tool calls requested by an assistant row; empty when none
 * @param toolCallId for a tool row, the call it answers; else null
 * @param toolName   for a tool row, the tool's name; else null
 * @param timestamp  when the row was written; null for legacy rows (freshness then counts as unknown, spec C7)
 * @param attachments for a user row, the files its message carried; for an answer, the files it sent
 *                   ({@code reply:<turn>:<index>} references, see {@code OutboundFile.replyRef}); empty when none (and
 *                   for rows stored before attachments were data, which keep them as lines of the content)
 */
public record TranscriptRow(
        long seq, Role role, String content, List<ToolCall> toolCalls, String toolCallId, String toolName, Instant timestamp,
        List<MediaRef> attachments) {

    public TranscriptRow {
        Objects.requireNonNull(role, "role");
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0");
        }
    }

    /** A row without attachments. */
    public TranscriptRow(long seq, Role role, String content, List<ToolCall> toolCalls, String toolCallId, String toolName,
            Instant timestamp) {
        this(seq, role, content, toolCalls, toolCallId, toolName, timestamp, List.of());
    }

    /** A user row for a message that carried {@code attachments}. */
    public static TranscriptRow user(String content, List<MediaRef> attachments, Instant at) {
        return new TranscriptRow(0, Role.USER, content, List.of(), null, null, at, attachments);
    }

    public static TranscriptRow user(String content, Instant at) {
        return new TranscriptRow(0, Role.USER, content, List.of(), null, null, at);
    }

    public static TranscriptRow assistant(String content, Instant at) {
        return new TranscriptRow(0, Role.ASSISTANT, content, List.of(), null, null, at);
    }

    public static TranscriptRow assistantToolCalls(String content, List<ToolCall> calls, Instant at) {
        return new TranscriptRow(0, Role.ASSISTANT, content, calls, null, null, at);
    }

    public static TranscriptRow tool(String toolCallId, String toolName, String content, Instant at) {
        return new TranscriptRow(0, Role.TOOL, content, List.of(), toolCallId, toolName, at);
    }

    public static TranscriptRow system(String content, Instant at) {
        return new TranscriptRow(0, Role.SYSTEM, content, List.of(), null, null, at);
    }

    public static TranscriptRow meta(String content, Instant at) {
        return new TranscriptRow(0, Role.SESSION_META, content, List.of(), null, null, at);
    }

    public boolean hasToolCalls() {
        return !toolCalls.isEmpty();
    }

    /** True for rows that belong to tool use: tool calls, a tool-call id, or role tool. */
    public boolean isToolRelated() {
        return hasToolCalls() || toolCallId != null || role == Role.TOOL;
    }

    /** This row with {@code files} as its attachments. */
    public TranscriptRow withAttachments(List<MediaRef> files) {
        return new TranscriptRow(seq, role, content, toolCalls, toolCallId, toolName, timestamp, files);
    }

    public TranscriptRow withSeq(long newSeq) {
        return new TranscriptRow(newSeq, role, content, toolCalls, toolCallId, toolName, timestamp, attachments);
    }
}
