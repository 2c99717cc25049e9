package dev.herald.agent.tool;

import java.util.Locale;

/** Small text helpers shared by tools and the loop. */
public final class Texts {
    private Texts() {
    }

    /** {@code 2,140}: grouped digits, independent of the machine's locale. */
    public static String number(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    /**
     * At most {@code limit} characters: longer text keeps its first two thirds and last third around a
     * marker saying how much was left out (the end of a command's output is usually what matters).
     */
    public static String clip(String text, int limit) {
        if (text.length() <= limit) {
            return text;
        }
        String marker = "\n…[" + number(text.length() - limit) + " characters omitted]…\n";
        int room = Math.max(0, limit - marker.length());
        int head = room * 2 / 3;
        return text.substring(0, head) + marker + text.substring(text.length() - (room - head));
    }

    /** One line of at most {@code limit} characters, for summaries and logs. */
    public static String line(String text, int limit) {
        String flat = text == null ? "" : text.replaceAll("\\s+", " ").strip();
        return flat.length() <= limit ? flat : flat.substring(0, Math.max(0, limit - 1)) + "…";
    }
}
