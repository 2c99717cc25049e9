package dev.herald.core.transcript;

import dev.herald.core.agent.ChatMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a stored transcript into what the model sees. Bookkeeping rows ({@code session_meta},
 * {@code system}) are dropped; rows that belong to tool use are kept whole but without timestamp or
 * sequence; other rows keep role, content and attachments, and only when they have either. Rows an {@link Omissions}
 * marker names ({@code /retry}, {@code /undo}) are left out. Because tool
 * rows lose their timestamps here, freshness is always read from the raw transcript (spec C5).
 */
public final class AgentHistory {
    private AgentHistory() {
    }

    public static List<ChatMessage> from(List<TranscriptRow> transcript) {
        List<ChatMessage> out = new ArrayList<>(transcript.size());
        List<Omissions.Range> omitted = Omissions.of(transcript);
        for (TranscriptRow row : transcript) {
            if (!kept(row) || Omissions.omitted(row, omitted)) {
                continue;
            }
            if (row.isToolRelated()) {
                out.add(new ChatMessage(row.role(), row.content(), row.toolCalls(), row.toolCallId(), row.toolName()));
            } else {
                out.add(new ChatMessage(row.role(), row.content(), List.of(), null, null, List.of(), row.attachments()));
            }
        }
        return out;
    }

    /** Whether {@link #from} makes a message of the row. */
    private static boolean kept(TranscriptRow row) {
        return row != null && !row.role().isBookkeeping() && (row.isToolRelated() || row.content() != null && !row.content().isEmpty()
                || !row.attachments().isEmpty());
    }

    /** True when the history {@link #from} makes of {@code transcript} ends with a tool result (without building it). */
    public static boolean endsWithToolResultRow(List<TranscriptRow> transcript) {
        // from the end, as before omissions: a marker is appended after the rows it names, so scanning backwards meets
        // every marker that can name a row before that row
        List<Omissions.Range> omitted = new ArrayList<>(0);
        for (int i = transcript.size() - 1; i >= 0; i--) {
            TranscriptRow row = transcript.get(i);
            Omissions.Range marker = Omissions.parse(row);
            if (marker != null) {
                omitted.add(marker);
            } else if (kept(row) && !Omissions.omitted(row, omitted)) {
                return row.role() == Role.TOOL;
            }
        }
        return false;
    }
}
