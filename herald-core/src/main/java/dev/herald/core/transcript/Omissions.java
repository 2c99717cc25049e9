package dev.herald.core.transcript;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rows the model no longer sees ({@code /retry}, {@code /undo}) while the store keeps them. A transcript is only ever
 * appended to (its cache and several nodes rely on that), so hiding rows is itself an appended row: a
 * {@code session_meta} marker naming the range of rows left out and why, in words an admin reads in the transcript.
 * {@link AgentHistory} skips the rows a marker names; the rows and the marker stay in the store and its exports.
 */
public final class Omissions {
    /** Why rows were left out, as the marker says it. */
    public enum Reason {
        /** Asked again by /retry: the answer was replaced by a new one. */
        REPLACED("replaced by /retry"),
        /** Taken back by /undo. */
        UNDONE("undone by /undo");

        private final String words;

        Reason(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    private static final Pattern MARKER = Pattern.compile("^omitted rows (\\d+)-(\\d+) from the model \\((.*)\\)$");

    /** An inclusive range of rows left out. */
    public record Range(long from, long to) {
        public boolean contains(long seq) {
            return seq >= from && seq <= to;
        }
    }

    private Omissions() {
    }

    /** The marker row that leaves rows {@code from} to {@code to} (inclusive) out of what the model sees. */
    public static TranscriptRow marker(long from, long to, Reason reason, Instant at) {
        if (from < 1 || to < from) {
            throw new IllegalArgumentException("an omitted range is 1 <= from <= to, was " + from + "-" + to);
        }
        return TranscriptRow.meta("omitted rows " + from + "-" + to + " from the model (" + reason.words() + ")", at);
    }

    /** The ranges the transcript's markers leave out, in the order written. */
    public static List<Range> of(List<TranscriptRow> transcript) {
        List<Range> out = new ArrayList<>();
        for (TranscriptRow row : transcript) {
            Range r = parse(row);
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    /** The range a marker row names, or null when the row is not a marker. */
    public static Range parse(TranscriptRow row) {
        if (row == null || row.role() != Role.SESSION_META || row.content() == null) {
            return null;
        }
        Matcher m = MARKER.matcher(row.content());
        if (!m.matches()) {
            return null;
        }
        try {
            return new Range(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Whether {@code row} (a stored row, seq above 0) is left out by one of {@code ranges}. */
    public static boolean omitted(TranscriptRow row, List<Range> ranges) {
        if (row.seq() == 0 || ranges.isEmpty()) {
            return false;
        }
        for (Range r : ranges) {
            if (r.contains(row.seq())) {
                return true;
            }
        }
        return false;
    }

    /** Why a marker row left its rows out, or null when the row is not a marker. */
    public static String reason(TranscriptRow row) {
        if (parse(row) == null) {
            return null;
        }
        Matcher m = MARKER.matcher(row.content());
        return m.matches() ? m.group(3) : null;
    }
}
