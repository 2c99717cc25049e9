package dev.herald.web;

import dev.herald.core.agent.ToolState;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.transcript.TranscriptRow;
import java.util.ArrayList;
import java.util.List;

/**
 * Transcript rows as the pages show them: role, text (shortened where a page needs no more), tool calls
 * by name with shortened arguments, and whether a user row is a continuity note the gateway wrote (a
 * resumed turn's row) rather than something the person typed.
 */
public final class TranscriptView {
    private static final String NOTE_PREFIX = "[System note:";

    /**
     * One row. {@code note} is true for user rows that hold a gateway note instead of typed text; {@code outcome} is how a
     * tool row's call ended ({@code ok}, {@code error}, {@code denied}, {@code interrupted}; {@link ToolState#ofResult}),
     * null for other rows.
     */
    public record Row(long seq, String role, String text, List<Tool> tools, String toolCallId, String toolName, String at, boolean note,
            String outcome) {
    }

    /** One tool call of an assistant row. */
    public record Tool(String id, String name, String args) {
    }

    private TranscriptView() {
    }

    /**
     * The rows after {@code afterSeq}, at most the newest {@code limit} of them, with tool text and
     * arguments cut to {@code maxToolText} characters (message text is never cut).
     */
    public static List<Row> rows(List<TranscriptRow> transcript, long afterSeq, int limit, int maxToolText) {
        List<Row> out = new ArrayList<>();
        for (TranscriptRow r : transcript) {
            if (r.seq() > afterSeq) {
                out.add(row(r, maxToolText));
            }
        }
        return out.size() <= limit ? out : List.copyOf(out.subList(out.size() - limit, out.size()));
    }

    static Row row(TranscriptRow r, int maxToolText) {
        String text = r.content() == null ? "" : r.content();
        List<Tool> tools = new ArrayList<>();
        for (ToolCall c : r.toolCalls()) {
            tools.add(new Tool(c.id(), c.name(), shorten(c.argumentsJson(), maxToolText)));
        }
        String role = r.role().wire();
        boolean note = role.equals("user") && text.stripLeading().startsWith(NOTE_PREFIX);
        String outcome = null;
        if (role.equals("tool")) {
            outcome = ToolState.ofResult(text).wire();
            text = shorten(text, maxToolText);
        }
        return new Row(r.seq(), role, text, tools, r.toolCallId(), r.toolName(), r.timestamp() == null ? null : r.timestamp().toString(), note,
                outcome);
    }

    static String shorten(String text, int max) {
        if (text == null) {
            return "";
        }
        return text.length() <= max ? text : text.substring(0, max) + "\u2026";
    }
}
