package dev.herald.web;

import dev.herald.core.agent.ToolState;
import dev.herald.core.transcript.Omissions;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.transcript.TranscriptRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Transcript rows as the pages show them: role, text (shortened where a page needs no more), tool calls
 * by name with shortened arguments, and what a row that nobody typed is: a user-side row written by the
 * gateway (a resumed turn's note, or the summary that starts a compressed conversation's continuation) is
 * an event, not a message; and in a continuation, the messages copied over from before the compression
 * are marked {@code carried}, so a page that already shows them does not show them twice.
 */
public final class TranscriptView {
    private static final String NOTE_PREFIX = "[System note:";
    /** How the gateway's compression summary row starts (core {@code Compactions}). */
    private static final String SUMMARY_PREFIX = "[System note: The earlier conversation was summarized";

    /** A gateway row that is an event rather than a message. */
    public static final String RESUMED = "resumed";
    public static final String SUMMARY = "summary";

    /**
     * One row. {@code note} is true for user rows that hold a gateway note instead of typed text;
     * {@code event} says which ({@value #RESUMED} or {@value #SUMMARY}), else null; {@code outcome} is how a tool
     * row's call ended ({@code ok}, {@code error}, {@code denied}, {@code interrupted}; {@link ToolState#ofResult}),
     * null for other rows; {@code carried} marks a message copied into a compressed conversation's continuation from
     * before the compression; {@code files} are the files a user row's message carried (never their platform reference);
     * {@code omitted} says why the model no longer sees the row ({@code replaced by /retry}, {@code undone by /undo};
     * {@link Omissions}), null for a row it sees.
     */
    public record Row(long seq, String role, String text, List<Tool> tools, String toolCallId, String toolName, String at, boolean note,
            String event, String outcome, boolean carried, List<File> files, String omitted) {
    }

    /**
     * A file a user message carried, as its sender's platform described it, or one an answer sent; {@code size} is -1
     * when unknown; {@code url} is the web chat's download link of a file an answer sent ({@value #FILES_PATH}{@code
     * <turn>/<index>}), else null; {@code heard} is what a voice note was transcribed as ({@code [voice note, 4 s]
     * words}), null when it was not (yet) or the file is no voice note.
     */
    public record File(String kind, String name, String type, long size, String url, String heard) {
    }

    /** Where the web chat serves the files answers sent. */
    public static final String FILES_PATH = "/chat/api/files/";

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
        return rows(transcript, afterSeq, limit, maxToolText, null);
    }

    /**
     * As {@link #rows(List, long, int, int)}, for a compressed conversation's continuation that started at
     * {@code continuedAt}: the rows the compression copied in (written at that instant) are {@code carried}.
     */
    public static List<Row> rows(List<TranscriptRow> transcript, long afterSeq, int limit, int maxToolText, Instant continuedAt) {
        return rows(transcript, afterSeq, limit, maxToolText, continuedAt, ref -> null);
    }

    /**
     * As {@link #rows(List, long, int, int, Instant)}, with what each voice note of a user row was heard as
     * ({@code heard}: the transcript, or null).
     */
    public static List<Row> rows(List<TranscriptRow> transcript, long afterSeq, int limit, int maxToolText, Instant continuedAt,
            java.util.function.Function<dev.herald.core.platform.MessageEvent.MediaRef, String> heard) {
        List<Row> out = new ArrayList<>();
        Map<Long, String> omitted = omitted(transcript);
        for (TranscriptRow r : transcript) {
            if (r.seq() > afterSeq) {
                boolean carried = continuedAt != null && r.timestamp() != null && !r.timestamp().isAfter(continuedAt);
                out.add(row(r, maxToolText, carried, omitted.get(r.seq()), heard));
            }
        }
        return out.size() <= limit ? out : List.copyOf(out.subList(out.size() - limit, out.size()));
    }

    /** Why each row a marker leaves out of the model's history is left out, by seq (the last marker's word wins). */
    private static Map<Long, String> omitted(List<TranscriptRow> transcript) {
        Map<Long, String> out = new HashMap<>();
        for (TranscriptRow r : transcript) {
            Omissions.Range range = Omissions.parse(r);
            if (range != null) {
                for (TranscriptRow hidden : transcript) {
                    if (range.contains(hidden.seq()) && !hidden.role().isBookkeeping()) {
                        out.put(hidden.seq(), Omissions.reason(r));
                    }
                }
            }
        }
        return out;
    }

    static Row row(TranscriptRow r, int maxToolText, boolean carried) {
        return row(r, maxToolText, carried, null, ref -> null);
    }

    static Row row(TranscriptRow r, int maxToolText, boolean carried, String omitted,
            java.util.function.Function<dev.herald.core.platform.MessageEvent.MediaRef, String> heard) {
        String text = r.content() == null ? "" : r.content();
        List<Tool> tools = new ArrayList<>();
        for (ToolCall c : r.toolCalls()) {
            tools.add(new Tool(c.id(), c.name(), shorten(c.argumentsJson(), maxToolText)));
        }
        String role = r.role().wire();
        String stripped = text.stripLeading();
        boolean note = role.equals("user") && stripped.startsWith(NOTE_PREFIX);
        String event = !note ? null : stripped.startsWith(SUMMARY_PREFIX) ? SUMMARY : RESUMED;
        String outcome = null;
        if (role.equals("tool")) {
            outcome = ToolState.ofResult(text).wire();
            text = shorten(text, maxToolText);
        }
        boolean user = role.equals("user");
        List<File> files = r.attachments().stream().map(a -> new File(a.kind(), a.name(), a.mimeType(), a.size(),
                dev.herald.core.platform.OutboundFile.parseReplyRef(a.ref()).map(t -> FILES_PATH + t[0] + "/" + t[1]).orElse(null),
                user && isAudio(a) ? heard.apply(a) : null)).toList();
        return new Row(r.seq(), role, text, tools, r.toolCallId(), r.toolName(), r.timestamp() == null ? null : r.timestamp().toString(),
                note, event, outcome, carried && !note, files, omitted);
    }

    private static boolean isAudio(dev.herald.core.platform.MessageEvent.MediaRef a) {
        return "voice".equals(a.kind()) || "audio".equals(a.kind()) || (a.mimeType() != null && a.mimeType().startsWith("audio/"));
    }

    static String shorten(String text, int max) {
        if (text == null) {
            return "";
        }
        return text.length() <= max ? text : text.substring(0, max) + "\u2026";
    }
}
