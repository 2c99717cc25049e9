package dev.herald.core.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Splits a long reply into parts no longer than a platform's limit without breaking code blocks:
 * a part that ends inside a fenced block closes the fence, and the next part reopens it with the same
 * language tag. Splits prefer a line break, then a space, and cut mid-word only when a single word is
 * longer than the limit.
 *
 * <p>A platform that rewrites text before sending it (Markdown into its own dialect) measures the
 * rewritten length; {@link #split(String, int, ToIntFunction)} splits a part again, shorter, until its
 * measured length fits. Each part is a whole piece of Markdown that the platform rewrites on its own,
 * so no part ever ends inside a tag or an entity of the rewritten text.
 */
public final class TextSplitter {
    private static final String FENCE = "```";

    private TextSplitter() {
    }

    /**
     * Splits {@code text} so that each part's {@code measure} (its length once the platform has rewritten
     * it) is at most {@code maxLength}. A part that cannot be made to fit (one very long word that the
     * rewriting lengthens) is kept whole after a few tries; the platform then sends what it can.
     */
    public static List<String> split(String text, int maxLength, ToIntFunction<String> measure) {
        List<String> out = new ArrayList<>();
        if (measure.applyAsInt(text) <= maxLength) {
            out.add(text);
            return out;
        }
        for (String part : split(text, maxLength)) {
            fit(part, maxLength, measure, out, 0);
        }
        return out;
    }

    private static void fit(String part, int maxLength, ToIntFunction<String> measure, List<String> out, int depth) {
        int measured = measure.applyAsInt(part);
        if (measured <= maxLength || part.length() <= 64 || depth >= 6) {
            out.add(part);
            return;
        }
        int shorter = (int) Math.min(part.length() - 16L, (long) part.length() * maxLength / measured - 16);
        for (String p : split(part, Math.max(48, shorter))) {
            fit(p, maxLength, measure, out, depth + 1);
        }
    }

    public static List<String> split(String text, int maxLength) {
        if (maxLength < 32) {
            throw new IllegalArgumentException("maxLength must be at least 32, was " + maxLength);
        }
        List<String> parts = new ArrayList<>();
        if (text.length() <= maxLength) {
            parts.add(text);
            return parts;
        }
        String rest = text;
        String reopen = null;
        while (!rest.isEmpty()) {
            String prefix = reopen == null ? "" : FENCE + reopen + "\n";
            int budget = maxLength - prefix.length() - (FENCE.length() + 1);
            if (prefix.length() + rest.length() <= maxLength) {
                parts.add(prefix + rest);
                break;
            }
            int cut = cutPoint(rest, budget);
            String chunk = rest.substring(0, cut);
            rest = stripLeadingNewline(rest.substring(cut));
            String openLang = openFenceLanguage(prefix + chunk);
            if (openLang != null) {
                parts.add(prefix + chunk + (chunk.endsWith("\n") ? "" : "\n") + FENCE);
                reopen = openLang;
            } else {
                parts.add(prefix + chunk);
                reopen = null;
            }
        }
        return parts;
    }

    private static int cutPoint(String s, int budget) {
        int limit = Math.min(budget, s.length());
        int nl = s.lastIndexOf('\n', limit);
        if (nl > limit / 2) {
            return nl + 1;
        }
        int sp = s.lastIndexOf(' ', limit);
        if (sp > limit / 2) {
            return sp + 1;
        }
        return limit;
    }

    private static String stripLeadingNewline(String s) {
        return s.startsWith("\n") ? s.substring(1) : s;
    }

    /** The language tag of a fence left open at the end of {@code s} ("" for none), or null when all are closed. */
    static String openFenceLanguage(String s) {
        String open = null;
        for (String line : s.split("\n", -1)) {
            String t = line.strip();
            if (t.startsWith(FENCE)) {
                open = open == null ? t.substring(FENCE.length()).strip() : null;
            }
        }
        return open;
    }
}
