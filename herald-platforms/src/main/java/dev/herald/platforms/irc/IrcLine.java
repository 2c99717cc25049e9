package dev.herald.platforms.irc;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One IRC protocol line (RFC 1459/2812 with IRCv3 message tags): {@code [@tags ][:source ]COMMAND [params] [:trailing]}.
 *
 * <p>{@link #parse} reads a line as the server sent it, without its CR LF; it never throws but {@link Malformed}, whose
 * message says what is wrong (for the log line). Text that is not valid UTF-8 is decoded with U+FFFD in place of the bad
 * bytes and the line is marked {@link #badUtf8()}, so the protocol still works (a PING is answered) while a message
 * carrying such text can be refused. {@link #format} builds a line to send and refuses what would break the framing (CR, LF,
 * NUL) or the parameter rules, so text from a model can never become a second command.
 *
 * @param tags    IRCv3 message tags, unescaped; empty when none
 * @param source  the prefix without its colon ({@code nick!user@host} or a server name), or null
 * @param command the command in upper case, or a three-digit numeric
 * @param params  the parameters, the trailing one included
 * @param badUtf8 the line was not valid UTF-8
 */
record IrcLine(Map<String, String> tags, String source, String command, List<String> params, boolean badUtf8) {
    /** The longest line a server may send with tags (8,191 bytes of tags, 512 for the rest). */
    static final int MAX_INBOUND_BYTES = 8_191 + 512;
    /** The longest line without CR LF that Herald sends (RFC 2812: 512 bytes with CR LF). */
    static final int MAX_OUTBOUND_BYTES = 510;
    private static final Pattern COMMAND = Pattern.compile("[A-Za-z]{1,32}|[0-9]{3}");
    private static final int MAX_PARAMS = 15;

    /** A line that is not IRC; the message names the problem. */
    static final class Malformed extends Exception {
        Malformed(String problem) {
            super(problem, null, false, false);
        }
    }

    IrcLine {
        tags = tags == null ? Map.of() : Collections.unmodifiableMap(tags);
        params = List.copyOf(params);
    }

    /** The nick of the source ({@code nick} of {@code nick!user@host}), or the whole source; null without one. */
    String nick() {
        if (source == null) {
            return null;
        }
        int bang = source.indexOf('!');
        int at = source.indexOf('@');
        int end = bang >= 0 ? bang : at >= 0 ? at : source.length();
        return source.substring(0, end);
    }

    /** Parameter {@code i}, or null when there are fewer. */
    String param(int i) {
        return i < params.size() ? params.get(i) : null;
    }

    /** The last parameter (usually the text), or null when there is none. */
    String last() {
        return params.isEmpty() ? null : params.get(params.size() - 1);
    }

    /** True for a numeric reply ({@code 001}, {@code 433}). */
    boolean numeric() {
        return Character.isDigit(command.charAt(0));
    }

    /** Parses one line ({@code length} bytes of {@code raw}, CR LF removed). */
    static IrcLine parse(byte[] raw, int length) throws Malformed {
        if (length > MAX_INBOUND_BYTES) {
            throw new Malformed("line of " + length + " bytes is over the " + MAX_INBOUND_BYTES + "-byte limit");
        }
        boolean bad = false;
        String line;
        CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            line = strict.decode(ByteBuffer.wrap(raw, 0, length)).toString();
        } catch (CharacterCodingException e) {
            bad = true;
            line = new String(raw, 0, length, StandardCharsets.UTF_8);
        }
        return parse(line, bad);
    }

    /** Parses one line of text (CR LF removed); {@code badUtf8} marks text decoded with replacements. */
    static IrcLine parse(String line, boolean badUtf8) throws Malformed {
        if (line.indexOf('\0') >= 0 || line.indexOf('\r') >= 0 || line.indexOf('\n') >= 0) {
            throw new Malformed("line carries a NUL, CR or LF inside it");
        }
        int i = 0;
        int n = line.length();
        Map<String, String> tags = Map.of();
        if (i < n && line.charAt(i) == '@') {
            int end = line.indexOf(' ', i);
            if (end < 0) {
                throw new Malformed("line has tags but no command");
            }
            tags = tags(line.substring(i + 1, end));
            i = skipSpaces(line, end);
        }
        String source = null;
        if (i < n && line.charAt(i) == ':') {
            int end = line.indexOf(' ', i);
            if (end < 0) {
                throw new Malformed("line has a source but no command");
            }
            source = line.substring(i + 1, end);
            if (source.isEmpty()) {
                throw new Malformed("line has an empty source");
            }
            i = skipSpaces(line, end);
        }
        int end = line.indexOf(' ', i);
        String command = line.substring(i, end < 0 ? n : end);
        if (!COMMAND.matcher(command).matches()) {
            throw new Malformed(command.isEmpty() ? "line has no command" : "command is neither letters nor a three-digit numeric");
        }
        List<String> params = new ArrayList<>();
        i = end < 0 ? n : skipSpaces(line, end);
        while (i < n) {
            if (line.charAt(i) == ':' || params.size() == MAX_PARAMS - 1) {
                params.add(line.charAt(i) == ':' ? line.substring(i + 1) : line.substring(i));
                break;
            }
            int next = line.indexOf(' ', i);
            params.add(line.substring(i, next < 0 ? n : next));
            i = next < 0 ? n : skipSpaces(line, next);
        }
        return new IrcLine(tags, source, command.toUpperCase(java.util.Locale.ROOT), params, badUtf8);
    }

    /**
     * One line to send: {@code command} and its parameters, the last one written as trailing ({@code :text}) when it needs
     * to be. Throws {@link IllegalArgumentException} for a parameter with CR, LF or NUL, a middle parameter that is empty,
     * has a space or starts with ':', or a line over {@link #MAX_OUTBOUND_BYTES} bytes.
     */
    static String format(String command, String... params) {
        StringBuilder out = new StringBuilder(command);
        for (int p = 0; p < params.length; p++) {
            String param = params[p];
            if (param.indexOf('\r') >= 0 || param.indexOf('\n') >= 0 || param.indexOf('\0') >= 0) {
                throw new IllegalArgumentException(command + " parameter " + (p + 1) + " carries CR, LF or NUL");
            }
            boolean lastOne = p == params.length - 1;
            boolean trailing = param.isEmpty() || param.indexOf(' ') >= 0 || param.charAt(0) == ':';
            if (trailing && !lastOne) {
                throw new IllegalArgumentException(command + " parameter " + (p + 1) + " is empty, has a space or starts with ':'");
            }
            out.append(' ').append(trailing ? ":" : "").append(param);
        }
        String line = out.toString();
        int bytes = line.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_OUTBOUND_BYTES) {
            throw new IllegalArgumentException(command + " line of " + bytes + " bytes is over " + MAX_OUTBOUND_BYTES);
        }
        return line;
    }

    private static int skipSpaces(String line, int i) {
        while (i < line.length() && line.charAt(i) == ' ') {
            i++;
        }
        return i;
    }

    /** IRCv3 tags: {@code key[=value]} separated by ';', values unescaped ({@code \:} ; {@code \s} space, {@code \\}, {@code \r}, {@code \n}). */
    private static Map<String, String> tags(String raw) throws Malformed {
        if (raw.isEmpty()) {
            throw new Malformed("line has an empty tag section");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String tag : raw.split(";", -1)) {
            if (tag.isEmpty()) {
                continue;
            }
            int eq = tag.indexOf('=');
            String key = eq < 0 ? tag : tag.substring(0, eq);
            if (key.isEmpty()) {
                throw new Malformed("line has a tag without a name");
            }
            out.put(key, eq < 0 ? "" : unescape(tag.substring(eq + 1)));
        }
        return out;
    }

    private static String unescape(String v) {
        if (v.indexOf('\\') < 0) {
            return v;
        }
        StringBuilder out = new StringBuilder(v.length());
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i >= v.length()) {
                break; // a trailing lone backslash is dropped
            }
            char e = v.charAt(i);
            out.append(switch (e) {
                case ':' -> ';';
                case 's' -> ' ';
                case 'r' -> '\r';
                case 'n' -> '\n';
                default -> e; // \\ is a backslash; an unknown escape is the character itself
            });
        }
        return out.toString();
    }

    /** The line with its text parameter left out, for log lines: what came, not what it said. */
    String describe() {
        return command + (source == null ? "" : " from " + nick()) + " (" + params.size() + " parameter(s))";
    }
}
