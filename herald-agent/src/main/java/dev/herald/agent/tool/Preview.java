package dev.herald.agent.tool;

import java.nio.charset.StandardCharsets;

/**
 * What an approval shows of text to be written: its size in bytes and lines, then all of it when short, else its
 * first and last lines with the number left out between them. Each shown line is at most {@value #LINE} characters.
 */
final class Preview {
    static final int LINES = 8;
    static final int LINE = 300;

    private Preview() {
    }

    static String of(String content) {
        String[] lines = content.split("\n", -1);
        int count = content.isEmpty() ? 0 : content.endsWith("\n") ? lines.length - 1 : lines.length;
        StringBuilder out = new StringBuilder();
        out.append(Texts.number(content.getBytes(StandardCharsets.UTF_8).length)).append(" bytes, ").append(Texts.number(count))
                .append(count == 1 ? " line" : " lines");
        if (count == 0) {
            return out.append(" (empty)").toString();
        }
        if (count <= 2 * LINES) {
            out.append(":\n");
            append(out, lines, 0, count);
            return out.toString();
        }
        out.append("; first ").append(LINES).append(" and last ").append(LINES).append(" lines:\n");
        append(out, lines, 0, LINES);
        out.append("\n…[").append(Texts.number(count - 2L * LINES)).append(" lines not shown]…\n");
        append(out, lines, count - LINES, count);
        return out.toString();
    }

    private static void append(StringBuilder out, String[] lines, int from, int to) {
        for (int i = from; i < to; i++) {
            String line = lines[i];
            out.append(line.length() <= LINE ? line : line.substring(0, LINE) + "…[" + Texts.number(line.length() - LINE) + " more characters]");
            if (i < to - 1) {
                out.append('\n');
            }
        }
    }
}
