package dev.herald.platforms.email;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The new part of a mail's text: quoted history and the signature removed, so the model reads what the person wrote
 * now (the conversation's earlier turns are in its own history already).
 *
 * <p>Removed: lines quoted with {@code >}; an attribution line ({@code On <date>, <name> wrote:}, also wrapped over two
 * lines, and its German, French, Spanish and Dutch forms) with everything after it; Outlook's
 * {@code -----Original Message-----} or underscore rule followed by {@code From:} and everything after; the signature
 * from a {@code -- } delimiter line on. When nothing is left (a mail that is all quote), the whole text is kept. Works
 * line by line with no backtracking pattern, so its time grows with the text's length only.
 */
final class Quotes {
    /** Text longer than this is cut before it is read (a mail's new part is short; the rest is history or noise). */
    static final int MAX_CHARS = 100_000;

    private static final Pattern ATTRIBUTION_END = Pattern.compile(
            "(wrote|schrieb|a écrit|escribió|schreef|scrisse|написал\\(а\\)|написал)\\s*:\\s*$", Pattern.CASE_INSENSITIVE);
    private static final Pattern ATTRIBUTION_START = Pattern.compile("^(On|Am|Le|El|Op|Il|Em)\\s.{0,200}", Pattern.CASE_INSENSITIVE);
    private static final Pattern ORIGINAL = Pattern.compile("^-{2,}\\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Forwarded message)\\s*-{2,}\\s*$",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern HEADER_FROM = Pattern.compile("^\\*?(From|Von|De)\\s*:\\*?\\s.*", Pattern.CASE_INSENSITIVE);

    private Quotes() {
    }

    /** {@code text} without quoted history and signature; the text itself (stripped) when nothing would remain. */
    static String strip(String text) {
        if (text == null) {
            return "";
        }
        String t = text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) : text;
        String[] lines = t.replace("\r\n", "\n").replace('\r', '\n').split("\n", -1);
        int end = cut(lines);
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < end; i++) {
            if (!lines[i].stripLeading().startsWith(">")) {
                kept.add(stripTrailing(lines[i]));
            }
        }
        String out = collapse(kept);
        return out.isEmpty() ? collapse(List.of(lines)) : out;
    }

    /** Where the new text ends: the first signature delimiter, attribution or forwarded-message header. */
    private static int cut(String[] lines) {
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String s = line.strip();
            if (line.equals("-- ") || line.equals("--")) {
                return i;
            }
            if (ORIGINAL.matcher(s).matches()) {
                return i;
            }
            if (s.startsWith("____") && s.chars().allMatch(c -> c == '_') && i + 1 < lines.length
                    && HEADER_FROM.matcher(lines[i + 1].strip()).matches()) {
                return i;
            }
            if (s.length() <= 400 && ATTRIBUTION_END.matcher(s).find()) {
                if (ATTRIBUTION_START.matcher(s).matches() || quoteFollows(lines, i + 1)) {
                    return i;
                }
                if (i > 0 && ATTRIBUTION_START.matcher(lines[i - 1].strip()).matches() && lines[i - 1].strip().length() <= 200) {
                    return i - 1; // "On Mon, 1 Jan 2026 at 10:00, Alice <" / "alice@example.org> wrote:"
                }
            }
        }
        return lines.length;
    }

    /** True when the next non-blank line after {@code from} is quoted (or there is none). */
    private static boolean quoteFollows(String[] lines, int from) {
        for (int i = from; i < lines.length; i++) {
            String s = lines[i].strip();
            if (!s.isEmpty()) {
                return s.startsWith(">");
            }
        }
        return true;
    }

    private static String stripTrailing(String line) {
        return line.stripTrailing();
    }

    /** The lines joined, without leading or trailing blank lines and with at most one blank line in a row. */
    private static String collapse(List<String> lines) {
        StringBuilder out = new StringBuilder();
        int blanks = 0;
        for (String l : lines) {
            String line = l.stripTrailing();
            if (line.isEmpty()) {
                blanks++;
                continue;
            }
            if (!out.isEmpty()) {
                out.append(blanks > 0 ? "\n\n" : "\n");
            }
            blanks = 0;
            out.append(line);
        }
        return out.toString();
    }
}
