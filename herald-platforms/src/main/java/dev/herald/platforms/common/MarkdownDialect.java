package dev.herald.platforms.common;

/**
 * How one chat platform writes each Markdown construct ({@link ChatMarkdown} walks the parsed answer and
 * asks its dialect for every piece). Inline methods receive their content already written in the
 * dialect; {@link #text} and {@link #code} receive raw text and must escape it for the platform.
 */
public interface MarkdownDialect {

    /** Plain text as the platform must receive it to show it literally. */
    String text(String raw);

    String bold(String inner);

    String italic(String inner);

    String strike(String inner);

    /** Inline code; {@code raw} is unescaped. */
    String code(String raw);

    /**
     * A link. {@code inner} is the link text written in the dialect, {@code plain} the same without markup
     * (for dialects that cannot nest markup in a link), {@code url} the destination as written.
     */
    String link(String inner, String plain, String url);

    /** A block of code (fenced or indented, or a table laid out in columns); {@code raw} is unescaped, without a final newline. */
    String codeBlock(String raw, String language);

    /** A heading of {@code level} 1-6, its content already written. */
    String heading(String inner, int level);

    /** A block quote; {@code inner} is the quoted blocks already written, lines separated by {@code \n}. */
    String quote(String inner);

    /** The marker in front of a bullet list item at {@code depth} (0 = top level). */
    default String bullet(int depth) {
        return depth == 0 ? "\u2022 " : "\u25e6 ";
    }

    /** A thematic break (a horizontal rule). */
    default String rule() {
        return "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500";
    }
}
