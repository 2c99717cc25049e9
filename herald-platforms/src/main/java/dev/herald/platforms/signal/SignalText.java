package dev.herald.platforms.signal;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Markdown answers as Signal text: plain characters plus style ranges, which signal-cli's {@code send} takes as
 * {@code textStyle} entries {@code start:length:STYLE} counted in UTF-16 code units (Java's {@code String} indices).
 *
 * <p>Bold and headings are {@code BOLD}, emphasis {@code ITALIC}, {@code ~~strike~~} {@code STRIKETHROUGH}, inline code
 * and code blocks {@code MONOSPACE} (a table is laid out in columns inside one); a link is its text with the address in
 * brackets (Signal makes addresses clickable by itself), a quote keeps {@code > } in front of its lines, bullets are
 * {@code •}. The dialect writes private-use marker characters around styled content, and {@link #render} turns them into
 * ranges; the same characters in the answer itself are removed first, so an answer cannot forge a range.
 */
final class SignalText implements MarkdownDialect {
    /** A Signal text style, as signal-cli names it. */
    enum Style {
        BOLD('\uE000', '\uE001'),
        ITALIC('\uE002', '\uE003'),
        STRIKETHROUGH('\uE004', '\uE005'),
        MONOSPACE('\uE006', '\uE007');

        final char open;
        final char close;

        Style(char open, char close) {
            this.open = open;
            this.close = close;
        }
    }

    /** One styled range: {@code start} and {@code length} in UTF-16 code units of the text. */
    record Range(int start, int length, Style style) {
        /** As signal-cli's {@code textStyle} parameter takes it. */
        String wire() {
            return start + ":" + length + ":" + style.name();
        }
    }

    /** A rendered answer: the text Signal shows and its style ranges. */
    record Rendered(String text, List<Range> styles) {
        List<String> wireStyles() {
            return styles.stream().map(Range::wire).toList();
        }
    }

    private static final ChatMarkdown MARKDOWN = new ChatMarkdown(new SignalText());

    /** {@code markdown} as Signal text with its style ranges. */
    static Rendered render(String markdown) {
        String marked = MARKDOWN.render(markdown);
        StringBuilder out = new StringBuilder(marked.length());
        Map<Style, Deque<Integer>> open = new EnumMap<>(Style.class);
        List<Range> ranges = new ArrayList<>();
        for (int i = 0; i < marked.length(); i++) {
            char c = marked.charAt(i);
            Style opened = null;
            Style closed = null;
            for (Style s : Style.values()) {
                if (c == s.open) {
                    opened = s;
                } else if (c == s.close) {
                    closed = s;
                }
            }
            if (opened != null) {
                open.computeIfAbsent(opened, k -> new ArrayDeque<>()).push(out.length());
            } else if (closed != null) {
                Deque<Integer> starts = open.get(closed);
                if (starts != null && !starts.isEmpty()) {
                    int start = starts.pop();
                    if (out.length() > start && starts.isEmpty()) { // a nested range of the same style adds nothing
                        ranges.add(new Range(start, out.length() - start, closed));
                    }
                }
            } else {
                out.append(c);
            }
        }
        ranges.sort((a, b) -> a.start != b.start ? Integer.compare(a.start, b.start) : a.style.compareTo(b.style));
        return new Rendered(out.toString(), List.copyOf(ranges));
    }

    /** The length the core measures a reply part by: characters of the text Signal shows. */
    static int length(String markdown) {
        return render(markdown).text().length();
    }

    /** {@code raw} without the marker characters, which only the dialect may write. */
    private static String clean(String raw) {
        StringBuilder out = new StringBuilder(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c < '\uE000' || c > '\uE007') {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String wrap(Style s, String inner) {
        return s.open + inner + s.close;
    }

    @Override
    public String text(String raw) {
        return clean(raw);
    }

    @Override
    public String bold(String inner) {
        return wrap(Style.BOLD, inner);
    }

    @Override
    public String italic(String inner) {
        return wrap(Style.ITALIC, inner);
    }

    @Override
    public String strike(String inner) {
        return wrap(Style.STRIKETHROUGH, inner);
    }

    @Override
    public String code(String raw) {
        return wrap(Style.MONOSPACE, clean(raw));
    }

    @Override
    public String link(String inner, String plain, String url) {
        String address = clean(url == null ? "" : url);
        if (address.isBlank() || plain.strip().equals(address)) {
            return address.isBlank() ? inner : address;
        }
        return inner + " (" + address + ")";
    }

    @Override
    public String codeBlock(String raw, String language) {
        return wrap(Style.MONOSPACE, clean(raw));
    }

    @Override
    public String heading(String inner, int level) {
        return wrap(Style.BOLD, inner);
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }
}
