package dev.herald.platforms.discord;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Markdown answers in Discord's own Markdown: mostly the same spelling ({@code **bold**}, {@code *italic*},
 * {@code ~~strike~~}, code, fenced blocks with their language, {@code [text](url)}, {@code >} quotes,
 * {@code #}-{@code ###} headings), with what Discord reads differently made safe: a table becomes an aligned
 * code block (Discord draws none), a heading deeper than three becomes a bold line, literal markup characters
 * in text are backslash-escaped (Discord shows {@code \*} as {@code *}), except inside bare URLs, which
 * Discord links as written. Mentions are not escaped here: the adapter sends every message with
 * {@code allowed_mentions} empty, so no text can ping anyone.
 */
final class DiscordMarkdown implements MarkdownDialect {
    private static final ChatMarkdown MARKDOWN = new ChatMarkdown(new DiscordMarkdown());
    private static final Pattern URL = Pattern.compile("https?://\\S+");
    private static final Pattern SPECIAL = Pattern.compile("([\\\\*_~`|>#\\[\\]])");
    private static final Pattern LINE_START = Pattern.compile("^([-+])", Pattern.MULTILINE);

    /** The answer in Discord's Markdown. */
    static String render(String markdown) {
        return MARKDOWN.render(markdown);
    }

    @Override
    public String text(String raw) {
        StringBuilder out = new StringBuilder();
        Matcher m = URL.matcher(raw);
        int at = 0;
        while (m.find()) {
            out.append(escape(raw.substring(at, m.start()))).append(m.group());
            at = m.end();
        }
        return out.append(escape(raw.substring(at))).toString();
    }

    private static String escape(String s) {
        String t = SPECIAL.matcher(s).replaceAll("\\\\$1");
        return LINE_START.matcher(t).replaceAll("\\\\$1");
    }

    @Override
    public String bold(String inner) {
        return "**" + inner + "**";
    }

    @Override
    public String italic(String inner) {
        return "*" + inner + "*";
    }

    @Override
    public String strike(String inner) {
        return "~~" + inner + "~~";
    }

    @Override
    public String code(String raw) {
        String fence = raw.contains("`") ? "``" : "`";
        String pad = raw.startsWith("`") || raw.endsWith("`") ? " " : "";
        return fence + pad + raw + pad + fence;
    }

    @Override
    public String link(String inner, String plain, String url) {
        if (url == null || url.isBlank() || !url.matches("(?i)https?://\\S+")) {
            return inner;
        }
        return "[" + inner + "](" + url.strip() + ")";
    }

    @Override
    public String codeBlock(String raw, String language) {
        return "```" + language + "\n" + raw.replace("```", "`\u200b``") + "\n```";
    }

    @Override
    public String heading(String inner, int level) {
        return level <= 3 ? "#".repeat(level) + " " + inner : "**" + inner + "**";
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }

    @Override
    public String bullet(int depth) {
        return "- ";
    }
}
