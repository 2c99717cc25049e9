package dev.herald.platforms.slack;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;

/**
 * Markdown answers in Slack's {@code mrkdwn}: {@code *bold*}, {@code _italic_}, {@code ~strike~},
 * {@code `code`}, code blocks without a language line (Slack would show it as text), links as
 * {@code <url|text>}, quotes as {@code >} lines, headings as bold lines, bullets as {@code •}, tables as
 * aligned code blocks. {@code &}, {@code <} and {@code >} in text are escaped as Slack requires, so text
 * can never form a link, a mention or {@code <!channel>}.
 */
final class SlackMrkdwn implements MarkdownDialect {
    private static final ChatMarkdown MRKDWN = new ChatMarkdown(new SlackMrkdwn());

    /** The answer in mrkdwn. */
    static String render(String markdown) {
        return MRKDWN.render(markdown);
    }

    @Override
    public String text(String raw) {
        return SlackMessages.escape(raw);
    }

    @Override
    public String bold(String inner) {
        return "*" + inner + "*";
    }

    @Override
    public String italic(String inner) {
        return "_" + inner + "_";
    }

    @Override
    public String strike(String inner) {
        return "~" + inner + "~";
    }

    @Override
    public String code(String raw) {
        return "`" + SlackMessages.escape(raw.replace("`", "'")) + "`";
    }

    @Override
    public String link(String inner, String plain, String url) {
        if (url == null || url.isBlank() || !url.matches("(?i)(https?://|mailto:)\\S+")) {
            return inner;
        }
        String label = SlackMessages.escape(plain.replace("|", "\u2223")).strip();
        String target = SlackMessages.escape(url.strip().replace("|", "%7C").replace("<", "%3C").replace(">", "%3E"));
        return label.isEmpty() || label.equals(target) ? "<" + target + ">" : "<" + target + "|" + label + ">";
    }

    @Override
    public String codeBlock(String raw, String language) {
        return "```\n" + SlackMessages.escape(raw.replace("```", "`\u200b``")) + "\n```";
    }

    @Override
    public String heading(String inner, int level) {
        return "*" + inner + "*";
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }
}
