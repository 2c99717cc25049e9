package dev.herald.agent.tool;

/** Small text helpers shared by tools and the loop. */
public final class Texts {
    private Texts() {
    }

    /** {@code 2,140}: grouped digits, independent of the machine's locale. */
    public static String number(long value) {
        String digits = Long.toString(value); // not String.format: this runs for every turn's closing log line
        int start = value < 0 ? 1 : 0;
        int length = digits.length() - start;
        if (length <= 3) {
            return digits;
        }
        StringBuilder out = new StringBuilder(digits.length() + length / 3);
        out.append(digits, 0, start);
        int first = length % 3 == 0 ? 3 : length % 3;
        out.append(digits, start, start + first);
        for (int i = start + first; i < digits.length(); i += 3) {
            out.append(',').append(digits, i, i + 3);
        }
        return out.toString();
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
