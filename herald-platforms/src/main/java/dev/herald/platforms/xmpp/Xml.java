package dev.herald.platforms.xmpp;

/**
 * Writing XML for the stream: text and attribute values escaped, and characters XML 1.0 cannot carry (controls
 * other than tab, newline and carriage return, lone surrogates, U+FFFE/U+FFFF) dropped, so no text the agent writes
 * can break the stream or add markup.
 */
final class Xml {
    private Xml() {
    }

    /** {@code raw} as element content. */
    static String text(String raw) {
        return escape(raw, false);
    }

    /** {@code raw} as an attribute value in single or double quotes. */
    static String attr(String raw) {
        return escape(raw, true);
    }

    private static String escape(String raw, boolean attribute) {
        if (raw == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(raw.length() + 16);
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append(attribute ? "&quot;" : "\"");
                case '\'' -> out.append(attribute ? "&apos;" : "'");
                case '\t', '\n', '\r' -> out.append(attribute ? "&#" + (int) c + ";" : String.valueOf(c));
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < raw.length() && Character.isLowSurrogate(raw.charAt(i + 1))) {
                        out.append(c).append(raw.charAt(++i));
                    } else if (c >= 0x20 && !Character.isSurrogate(c) && c != 0xFFFE && c != 0xFFFF) {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
