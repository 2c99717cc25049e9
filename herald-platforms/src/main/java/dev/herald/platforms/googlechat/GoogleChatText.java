package dev.herald.platforms.googlechat;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;

/**
 * Markdown answers in Google Chat's text formatting: {@code *bold*}, {@code _italic_}, {@code ~strike~},
 * {@code `code`}, {@code ```monospace```} blocks, links as {@code <url|text>}, headings as bold lines, quotes as
 * {@code > } lines, tables as monospace blocks. Google Chat has no escape character; text is sent as it is.
 */
final class GoogleChatText implements MarkdownDialect {
    private static final ChatMarkdown CHAT = new ChatMarkdown(new GoogleChatText());

    static String render(String markdown) {
        return CHAT.render(markdown);
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
        String u = url.strip();
        if (u.contains("|") || u.contains(">") || u.contains(" ")) {
            return inner + " (" + u + ")";
        }
        return "<" + u + "|" + plain.replace("|", "/").replace(">", ")") + ">";
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
