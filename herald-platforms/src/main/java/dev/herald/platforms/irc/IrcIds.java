package dev.herald.platforms.irc;

import java.util.regex.Pattern;

/**
 * IRC names (nicks, channels, accounts) as Herald ids, and back.
 *
 * <p>An id is the name with ASCII letters lower-cased (every IRC casemapping folds A-Z, so the server treats the id as the
 * same name) and three things escaped as {@code %XX}: {@code %} itself, the backslash (legal in nicks, not in session
 * keys) and a dot that follows a dot ({@code ..} is refused in ids). {@link #wire} undoes the escapes, so a reply to a
 * DM goes to the nick, a reply in a channel to the channel. Names are never longer than the protocol allows (a line is
 * 512 bytes), so ids stay short.
 */
final class IrcIds {
    private static final Pattern CHANNEL = Pattern.compile("[#&+!][^\\x00-\\x20,\\x7f-\\x9f\\x{fffd}]{1,49}");

    private IrcIds() {
    }

    /** The id of {@code name}: ASCII lower case, with {@code %}, {@code \} and the second dot of {@code ..} escaped. */
    static String fold(String name) {
        StringBuilder out = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '%') {
                out.append("%25");
            } else if (c == '\\') {
                out.append("%5C");
            } else if (c == '.' && i > 0 && name.charAt(i - 1) == '.') {
                out.append("%2E");
            } else {
                out.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : c);
            }
        }
        return out.toString();
    }

    /** The name an id stands for on the wire; text that is not an escape is kept as written. */
    static String wire(String id) {
        if (id.indexOf('%') < 0) {
            return id;
        }
        StringBuilder out = new StringBuilder(id.length());
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c == '%' && i + 2 < id.length() && hex(id.charAt(i + 1)) >= 0 && hex(id.charAt(i + 2)) >= 0) {
                out.append((char) (hex(id.charAt(i + 1)) * 16 + hex(id.charAt(i + 2))));
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** True for a channel name a server can have: a prefix (#, &amp;, +, !) and 1-49 characters without spaces, commas or controls. */
    static boolean isChannelName(String name) {
        return name != null && CHANNEL.matcher(name).matches();
    }

    /**
     * True for a name a sender can have (a nick or an account): 1-64 characters, none of them a space, a control character,
     * or one of {@code , * ? ! @} (which separate or match names in the protocol), and not starting like a channel.
     */
    static boolean isSenderName(String name) {
        if (name == null || name.isEmpty() || name.length() > 64 || "#&".indexOf(name.charAt(0)) >= 0) {
            return false;
        }
        return name.codePoints().noneMatch(c -> Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSpaceChar(c)
                || ",*?!@".indexOf(c) >= 0 || c == 0xfffd || Character.getType(c) == Character.FORMAT);
    }

    /** True when {@code a} and {@code b} name the same nick or channel (ASCII case ignored). */
    static boolean same(String a, String b) {
        return a != null && b != null && fold(a).equals(fold(b));
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }
}
