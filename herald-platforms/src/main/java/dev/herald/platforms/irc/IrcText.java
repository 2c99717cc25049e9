package dev.herald.platforms.irc;

import dev.herald.platforms.common.ChatMarkdown;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.List;

/**
 * Markdown answers as IRC text, and IRC text as lines that fit the protocol.
 *
 * <p>{@link #render}: plain text a person reads in any client. Emphasis markers are dropped, inline code keeps its
 * backticks, a link is {@code text (url)}, a heading is its text, a quote keeps {@code > }, bullets are {@code - }, a code
 * block keeps its fence lines ({@code ```lang} ... {@code ```}) so its start and end are visible, a table is laid out
 * in aligned columns inside such a block. No IRC formatting codes are sent: every client shows plain text.
 *
 * <p>{@link #lines}: the text cut into the lines of PRIVMSG commands, each at most {@code maxBytes} bytes of UTF-8 after
 * {@code prefix}. A line is cut at the last space that leaves at least half of it, else between two characters (grapheme
 * clusters: an emoji with its modifiers or a letter with its accents stays whole, and a UTF-8 sequence is never cut).
 * Blank lines are left out (IRC cannot send an empty message); control characters are removed (CR, LF and NUL would end
 * the command, \u0001 would make it a CTCP request, the others are formatting codes) and a tab becomes four spaces.
 */
final class IrcText extends dev.herald.platforms.common.PlainDialect {
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new IrcText());

    /** The answer as plain IRC text, lines separated by {@code \n}. */
    static String render(String markdown) {
        return PLAIN.render(markdown);
    }

    /** The length the core measures a reply part by: characters of the rendered text. */
    static int length(String markdown) {
        return render(markdown).length();
    }

    /**
     * {@code text} as lines of at most {@code maxBytes} UTF-8 bytes each, {@code prefix} included (it is put in front of
     * every line; {@code ""} for none). {@code maxBytes} must leave room for the prefix and one character of text.
     */
    static List<String> lines(String text, String prefix, int maxBytes) {
        int prefixBytes = bytes(prefix);
        int room = maxBytes - prefixBytes;
        if (room < 8) {
            throw new IllegalArgumentException("no room for text: " + maxBytes + " bytes with a prefix of " + prefixBytes);
        }
        List<String> out = new ArrayList<>();
        for (String raw : text.split("\n", -1)) {
            String line = clean(raw);
            if (line.isBlank()) {
                continue;
            }
            for (String piece : cut(line, room)) {
                out.add(prefix + piece);
            }
        }
        return out;
    }

    /** The UTF-8 length of {@code s}. */
    static int bytes(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3; // a BMP character, or a lone surrogate (sent as U+FFFD's three bytes)
            }
        }
        return n;
    }

    /** {@code line} without control characters; a tab becomes four spaces, a lone surrogate U+FFFD. */
    static String clean(String line) {
        StringBuilder out = new StringBuilder(line.length());
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\t') {
                out.append("    ");
            } else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                continue;
            } else if (Character.isHighSurrogate(c) && i + 1 < line.length() && Character.isLowSurrogate(line.charAt(i + 1))) {
                out.append(c).append(line.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append('\ufffd');
            } else {
                out.append(c);
            }
        }
        return out.toString().stripTrailing();
    }

    /** One clean line as pieces of at most {@code room} bytes. */
    private static List<String> cut(String line, int room) {
        List<String> out = new ArrayList<>();
        String rest = line;
        while (bytes(rest) > room) {
            BreakIterator chars = BreakIterator.getCharacterInstance();
            chars.setText(rest);
            int fit = 0; // the end of the longest run of whole characters that fits
            int used = 0;
            int space = -1;
            for (int start = chars.first(), end = chars.next(); end != BreakIterator.DONE; start = end, end = chars.next()) {
                int b = bytes(rest.substring(start, end));
                if (used + b > room) {
                    break;
                }
                used += b;
                fit = end;
                if (rest.charAt(start) == ' ') {
                    space = start;
                }
            }
            if (fit == 0) { // one grapheme cluster longer than the room: cut it between code points instead
                fit = codePointsThatFit(rest, room);
            }
            int at = space > fit / 2 ? space : fit;
            out.add(rest.substring(0, at).stripTrailing());
            rest = rest.substring(at).stripLeading();
        }
        if (!rest.isEmpty()) {
            out.add(rest);
        }
        return out;
    }

    private static int codePointsThatFit(String s, int room) {
        int used = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            int b = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (used + b > room) {
                break;
            }
            used += b;
            i += Character.charCount(cp);
        }
        return Math.max(i, Character.charCount(s.codePointAt(0)));
    }

    // ---- the dialect --------------------------------------------------------------------------

    @Override
    public String code(String raw) {
        return "`" + raw + "`";
    }

    @Override
    public String link(String inner, String plain, String url) {
        String u = url == null ? "" : url.strip();
        String label = plain.strip();
        if (u.isEmpty() || label.equals(u) || u.equals("mailto:" + label)) {
            return u.isEmpty() ? inner : u;
        }
        return (label.isEmpty() ? "" : label + " ") + "(" + u + ")";
    }

    @Override
    public String codeBlock(String raw, String language) {
        if (raw.isBlank()) {
            return ""; // an empty block (a reply split just after a fence opened) shows nothing
        }
        return "```" + language + "\n" + raw + "\n```";
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }

    @Override
    public String bullet(int depth) {
        return "- ";
    }

    @Override
    public String rule() {
        return "----";
    }
}
