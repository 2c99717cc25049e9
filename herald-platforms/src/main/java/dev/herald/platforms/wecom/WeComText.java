package dev.herald.platforms.wecom;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.PlainDialect;
import java.nio.charset.StandardCharsets;

/**
 * Answers as WeCom shows them. WeCom's {@code markdown} message knows a subset: headings, {@code **bold**}, links
 * {@code [text](url)}, inline {@code `code`} (one line) and {@code > } quotes; no italics, strike-through or code blocks,
 * so those keep their words without marks (a code block's lines as they are). Plain text (with {@code markdown: false})
 * is {@link PlainDialect}. WeCom counts both in UTF-8 bytes (at most 2,048), so {@link #bytes} is the length the gateway
 * splits by.
 */
final class WeComText extends PlainDialect {
    private static final ChatMarkdown MARKDOWN = new ChatMarkdown(new WeComText());
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new PlainDialect());

    static String render(String markdown, boolean asMarkdown) {
        return (asMarkdown ? MARKDOWN : PLAIN).render(markdown);
    }

    static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public String bold(String inner) {
        return inner.isBlank() ? inner : "**" + inner + "**";
    }

    @Override
    public String code(String raw) {
        return raw.isBlank() || raw.contains("\n") ? raw : "`" + raw.replace("`", "'") + "`";
    }

    @Override
    public String link(String inner, String plain, String url) {
        if (url == null || url.isBlank() || !url.strip().matches("(?i)https?://\\S+")) {
            return inner;
        }
        return "[" + inner.replace("]", ")") + "](" + url.strip().replace(")", "%29") + ")";
    }

    @Override
    public String heading(String inner, int level) {
        return "#".repeat(Math.max(1, Math.min(6, level))) + " " + inner;
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }
}
