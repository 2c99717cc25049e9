package dev.herald.platforms.email;

import java.util.Locale;
import java.util.Map;

/**
 * The text of an HTML mail body, for mail that has no text/plain part: tags dropped, block ends turned into line breaks,
 * the common entities decoded, and quoted history ({@code <blockquote>}, Gmail's {@code gmail_quote} block) left out.
 * A single pass over the characters, no regular expression: its time grows with the length only, whatever the markup.
 */
final class Html {
    private static final Map<String, String> ENTITIES = Map.of("amp", "&", "lt", "<", "gt", ">", "quot", "\"", "apos", "'", "nbsp", " ");

    private Html() {
    }

    static String text(String html) {
        StringBuilder out = new StringBuilder(Math.min(html.length(), 1 << 16));
        int skipDepth = 0; // inside <blockquote>, <script>, <style>, <head> or a gmail_quote block
        int i = 0;
        int n = html.length();
        while (i < n) {
            char c = html.charAt(i);
            if (c == '<') {
                int end = html.indexOf('>', i + 1);
                if (end < 0) {
                    break;
                }
                String tag = html.substring(i + 1, Math.min(end, i + 1 + 300)).strip().toLowerCase(Locale.ROOT);
                boolean closing = tag.startsWith("/");
                String name = name(closing ? tag.substring(1) : tag);
                boolean hiding = name.equals("blockquote") || name.equals("script") || name.equals("style") || name.equals("head")
                        || (name.equals("div") && tag.contains("gmail_quote"));
                if (hiding && !closing && !tag.endsWith("/")) {
                    skipDepth++;
                } else if (closing && skipDepth > 0 && (name.equals("blockquote") || name.equals("script") || name.equals("style")
                        || name.equals("head") || name.equals("div"))) {
                    skipDepth--;
                } else if (skipDepth == 0 && (name.equals("br") || name.equals("p") || name.equals("div") || name.equals("li")
                        || name.equals("tr") || (name.length() == 2 && name.charAt(0) == 'h' && name.charAt(1) >= '1' && name.charAt(1) <= '6'))) {
                    out.append('\n');
                }
                i = end + 1;
                continue;
            }
            if (skipDepth == 0) {
                if (c == '&') {
                    int semi = -1;
                    for (int j = i + 1; j < n && j <= i + 10; j++) {
                        if (html.charAt(j) == ';') {
                            semi = j;
                            break;
                        }
                    }
                    if (semi > i) {
                        String decoded = entity(html.substring(i + 1, semi));
                        if (decoded != null) {
                            out.append(decoded);
                            i = semi + 1;
                            continue;
                        }
                    }
                }
                out.append(c == '\r' || c == '\n' || c == '\t' ? ' ' : c);
            }
            i++;
        }
        StringBuilder lines = new StringBuilder();
        for (String line : out.toString().split("\n", -1)) {
            lines.append(line.strip().replaceAll(" {2,}", " ")).append('\n');
        }
        return lines.toString().strip();
    }

    private static String name(String tag) {
        int end = 0;
        while (end < tag.length() && Character.isLetterOrDigit(tag.charAt(end))) {
            end++;
        }
        return tag.substring(0, end);
    }

    private static String entity(String e) {
        String named = ENTITIES.get(e.toLowerCase(Locale.ROOT));
        if (named != null) {
            return named;
        }
        try {
            int cp = e.startsWith("#x") || e.startsWith("#X") ? Integer.parseInt(e.substring(2), 16)
                    : e.startsWith("#") ? Integer.parseInt(e.substring(1)) : -1;
            return cp > 0 && Character.isValidCodePoint(cp) && !Character.isISOControl(cp) ? new String(Character.toChars(cp)) : null;
        } catch (NumberFormatException notANumber) {
            return null;
        }
    }
}
