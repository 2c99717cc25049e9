package dev.herald.core.transcript;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * Conversations written out for people and tools ({@code herald export}, the admin page's download):
 *
 * <ul>
 *   <li>{@link Format#JSONL}: one JSON object per stored message, with its transcript session, lane, position,
 *       role, text, tool calls and time; every message in full, for scripts and other systems.</li>
 *   <li>{@link Format#MARKDOWN}: one section per transcript session, each message under its role and time,
 *       tool calls and their results in code blocks; for reading.</li>
 * </ul>
 * Rows are written exactly as stored: nothing is shortened, and bookkeeping rows keep their role.
 */
public final class TranscriptExport {
    /** The formats. */
    public enum Format {
        JSONL("jsonl", "application/x-ndjson"),
        MARKDOWN("md", "text/markdown");

        private final String extension;
        private final String mediaType;

        Format(String extension, String mediaType) {
            this.extension = extension;
            this.mediaType = mediaType;
        }

        public String extension() {
            return extension;
        }

        public String mediaType() {
            return mediaType;
        }

        /** {@code jsonl} or {@code markdown} (also {@code md}), any case. */
        public static Format parse(String name) {
            return switch (name == null ? "" : name.strip().toLowerCase(Locale.ROOT)) {
                case "jsonl", "json" -> JSONL;
                case "markdown", "md" -> MARKDOWN;
                default -> throw new IllegalArgumentException("export - format must be jsonl or markdown, was '" + name + "'");
            };
        }
    }

    private TranscriptExport() {
    }

    /** Writes one transcript session and its rows in {@code format}. */
    public static void write(Format format, TranscriptSession session, List<TranscriptRow> rows, Appendable out) throws IOException {
        if (format == Format.JSONL) {
            for (TranscriptRow r : rows) {
                jsonLine(session, r, out);
            }
        } else {
            markdown(session, rows, out);
        }
    }

    private static void jsonLine(TranscriptSession s, TranscriptRow r, Appendable out) throws IOException {
        out.append("{\"session_key\":").append(json(s.sessionKey()))
                .append(",\"session_id\":").append(json(s.id()))
                .append(",\"seq\":").append(Long.toString(r.seq()))
                .append(",\"role\":").append(json(r.role().wire()))
                .append(",\"content\":").append(json(r.content()));
        if (r.hasToolCalls()) {
            out.append(",\"tool_calls\":[");
            for (int i = 0; i < r.toolCalls().size(); i++) {
                ToolCall c = r.toolCalls().get(i);
                out.append(i == 0 ? "" : ",").append("{\"id\":").append(json(c.id())).append(",\"name\":").append(json(c.name()))
                        .append(",\"arguments\":").append(json(c.argumentsJson())).append('}');
            }
            out.append(']');
        }
        if (r.toolCallId() != null) {
            out.append(",\"tool_call_id\":").append(json(r.toolCallId()));
        }
        if (r.toolName() != null) {
            out.append(",\"tool_name\":").append(json(r.toolName()));
        }
        out.append(",\"at\":").append(json(r.timestamp() == null ? null : r.timestamp().toString())).append("}\n");
    }

    private static void markdown(TranscriptSession s, List<TranscriptRow> rows, Appendable out) throws IOException {
        out.append("## ").append(s.sessionKey() == null ? "(no lane)" : s.sessionKey()).append(" · session ").append(s.id()).append("\n\n");
        out.append("Started ").append(s.startedAt().toString());
        if (s.parentSessionId() != null) {
            out.append(", continues session ").append(s.parentSessionId());
        }
        if (s.ended()) {
            out.append("; ended ").append(s.endedAt().toString()).append(" (").append(s.endReason().code()).append(')');
        }
        out.append(". ").append(Integer.toString(rows.size())).append(rows.size() == 1 ? " message.\n\n" : " messages.\n\n");
        for (TranscriptRow r : rows) {
            out.append("**").append(r.role().wire()).append("**");
            if (r.toolName() != null) {
                out.append(" · ").append(r.toolName());
            }
            if (r.timestamp() != null) {
                out.append(" · ").append(r.timestamp().toString());
            }
            out.append("\n\n");
            String text = r.content() == null ? "" : r.content();
            if (r.role() == Role.TOOL) {
                fenced(text, out);
            } else if (!text.isEmpty()) {
                out.append(text).append("\n\n");
            }
            for (ToolCall c : r.toolCalls()) {
                out.append("Tool call `").append(c.name()).append("`:\n\n");
                fenced(c.argumentsJson(), out);
            }
        }
    }

    /** A code block whose fence is longer than any run of backticks inside, so the text cannot close it. */
    private static void fenced(String text, Appendable out) throws IOException {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            run = text.charAt(i) == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        String fence = "`".repeat(Math.max(3, longest + 1));
        out.append(fence).append('\n').append(text).append(text.endsWith("\n") ? "" : "\n").append(fence).append("\n\n");
    }

    /** A JSON string literal (or null). */
    static String json(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
