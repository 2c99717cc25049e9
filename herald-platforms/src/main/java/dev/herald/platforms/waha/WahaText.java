package dev.herald.platforms.waha;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;

/**
 * The agent's Markdown as a WhatsApp chat shows it (the same app as Meta's Cloud API, so the same marks): single
 * {@code *} for bold, {@code _} italic, {@code ~} strike, backticks for inline code and {@code ```} for blocks, quotes
 * as {@code > } lines, headings as bold lines, a link as its text with the address after it in parentheses (WhatsApp
 * links addresses itself). WhatsApp has no escape character, so plain text goes as written.
 */
final class WahaText implements MarkdownDialect {
    private static final ChatMarkdown MARKDOWN = new ChatMarkdown(new WahaText());

    /** {@code markdown} as WhatsApp shows it. */
    static String render(String markdown) {
        return MARKDOWN.render(markdown);
    }

    private static String wrap(String mark, String inner) {
        return inner.isBlank() ? inner : mark + inner + mark;
    }

    @Override
    public String text(String raw) {
        return raw;
    }

    @Override
    public String bold(String inner) {
        return wrap("*", inner);
    }

    @Override
    public String italic(String inner) {
        return wrap("_", inner);
    }

    @Override
    public String strike(String inner) {
        return wrap("~", inner);
    }

    @Override
    public String code(String raw) {
        return raw.isBlank() ? raw : "`" + raw.replace('`', '\'') + "`";
    }

    @Override
    public String link(String inner, String plain, String url) {
        String target = url == null ? "" : url.strip();
        return target.isEmpty() || plain.strip().equals(target) ? inner : inner + " (" + target + ")";
    }

    @Override
    public String codeBlock(String raw, String language) {
        // a ``` inside would end the block early: a zero-width space keeps it literal
        return "```" + raw.replace("```", "``\u200b`") + "```";
    }

    @Override
    public String heading(String inner, int level) {
        return bold(inner);
    }

    @Override
    public String quote(String inner) {
        return "> " + String.join("\n> ", inner.split("\n", -1));
    }
}
