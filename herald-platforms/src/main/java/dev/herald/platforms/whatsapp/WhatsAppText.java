package dev.herald.platforms.whatsapp;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;

/**
 * Markdown answers in WhatsApp's formatting: {@code *bold*}, {@code _italic_}, {@code ~strike~}, {@code `code`},
 * {@code ```monospace```} blocks, {@code > } quotes, headings as bold lines, links as {@code text (url)} (WhatsApp
 * links bare URLs itself), tables as monospace blocks. WhatsApp has no escape character; text is sent as it is.
 */
final class WhatsAppText implements MarkdownDialect {
    private static final ChatMarkdown WHATSAPP = new ChatMarkdown(new WhatsAppText());

    /** The answer as WhatsApp shows it. */
    static String render(String markdown) {
        return WHATSAPP.render(markdown);
    }

    @Override
    public String text(String raw) {
        return raw;
    }

    @Override
    public String bold(String inner) {
        return inner.isBlank() ? inner : "*" + inner + "*";
    }

    @Override
    public String italic(String inner) {
        return inner.isBlank() ? inner : "_" + inner + "_";
    }

    @Override
    public String strike(String inner) {
        return inner.isBlank() ? inner : "~" + inner + "~";
    }

    @Override
    public String code(String raw) {
        return raw.isBlank() ? raw : "`" + raw.replace("`", "'") + "`";
    }

    @Override
    public String link(String inner, String plain, String url) {
        if (url == null || url.isBlank() || plain.strip().equals(url.strip())) {
            return inner;
        }
        return inner + " (" + url.strip() + ")";
    }

    @Override
    public String codeBlock(String raw, String language) {
        return "```" + raw.replace("```", "`\u200b``") + "```";
    }

    @Override
    public String heading(String inner, int level) {
        return bold(inner);
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }
}
