package dev.herald.platforms.common;

/**
 * Markdown read with no markup at all: the words stay, emphasis and headings lose their marks, a link keeps its address
 * after its text, a quote is marked with a bar. A platform whose chats show plain text (IRC, SMS) starts from this and
 * overrides what its users write differently (inline code in backticks, say).
 */
public class PlainDialect implements MarkdownDialect {
    @Override
    public String text(String raw) {
        return raw;
    }

    @Override
    public String bold(String inner) {
        return inner;
    }

    @Override
    public String italic(String inner) {
        return inner;
    }

    @Override
    public String strike(String inner) {
        return inner;
    }

    @Override
    public String code(String raw) {
        return raw;
    }

    @Override
    public String link(String inner, String plain, String url) {
        return url == null || url.isBlank() || plain.strip().equals(url.strip()) ? inner : inner + " (" + url.strip() + ")";
    }

    @Override
    public String codeBlock(String raw, String language) {
        return raw;
    }

    @Override
    public String heading(String inner, int level) {
        return inner;
    }

    @Override
    public String quote(String inner) {
        return "\u2502 " + inner.replace("\n", "\n\u2502 ");
    }
}
