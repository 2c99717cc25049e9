package dev.herald.platforms.sms;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.PlainDialect;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's Markdown as an SMS shows it: plain text ({@link PlainDialect}: no marks, links as {@code text (url)}), with
 * list bullets, rules and quotes in characters of the GSM 7-bit alphabet ({@code -}, {@code ----}, {@code > }), since
 * one character outside it makes the whole message UCS-2, where a segment holds 70 characters instead of 160.
 *
 * <p>{@link #chunks} cuts an answer longer than one Twilio message into several, at the last paragraph break that
 * fits, else a line break, else a sentence's end, else a space (a word is cut only when it alone is longer).
 */
final class SmsText extends PlainDialect {
    private static final ChatMarkdown SMS = new ChatMarkdown(new SmsText());

    /** The answer as the phone shows it. */
    static String render(String markdown) {
        return SMS.render(markdown).strip();
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }

    @Override
    public String bullet(int depth) {
        return "  ".repeat(Math.max(0, depth)) + "- ";
    }

    @Override
    public String rule() {
        return "----";
    }

    /** {@code text} in pieces of at most {@code max} characters, cut where the class comment says; blank pieces dropped. */
    static List<String> chunks(String text, int max) {
        List<String> out = new ArrayList<>();
        String rest = text.strip();
        while (rest.length() > max) {
            int cut = cutPoint(rest, max);
            String piece = rest.substring(0, cut).strip();
            if (!piece.isEmpty()) {
                out.add(piece);
            }
            rest = rest.substring(cut).strip();
        }
        if (!rest.isEmpty()) {
            out.add(rest);
        }
        return out;
    }

    private static int cutPoint(String s, int max) {
        int floor = max / 3;
        int p = s.lastIndexOf("\n\n", max - 2);
        if (p >= floor) {
            return p + 2;
        }
        p = s.lastIndexOf('\n', max - 1);
        if (p >= floor) {
            return p + 1;
        }
        for (int i = max - 1; i >= floor; i--) {
            char c = s.charAt(i);
            if ((c == '.' || c == '!' || c == '?' || c == ';') && i + 1 < s.length() && Character.isWhitespace(s.charAt(i + 1))) {
                return i + 1;
            }
            if (c == '\u3002' || c == '\uff01' || c == '\uff1f') {
                return i + 1;
            }
        }
        p = s.lastIndexOf(' ', max);
        if (p >= floor) {
            return p + 1;
        }
        return Character.isLowSurrogate(s.charAt(max)) ? max - 1 : max;
    }
}
