package dev.herald.platforms.xmpp;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;

/**
 * Markdown answers as XEP-0393 message styling, which XMPP clients (Conversations, Dino, Gajim, Monal...) show
 * styled and every other client shows as readable text: {@code *bold*}, {@code _italic_}, {@code ~strike~},
 * {@code `code`}, {@code ```} pre-formatted blocks, {@code >} quotes; headings become bold lines, links
 * {@code text (url)}, tables aligned pre-formatted blocks. XEP-0393 has no escape character, so literal markup
 * characters in text are left as they are (a client may style a span the agent wrote literally).
 */
final class XmppStyling implements MarkdownDialect {
    private static final ChatMarkdown STYLING = new ChatMarkdown(new XmppStyling());

    /** The answer as styled text. */
    static String render(String markdown) {
        return STYLING.render(markdown);
    }

    @Override
    public String text(String raw) {
        return raw;
    }

    @Override
    public String bold(String inner) {
        return span("*", inner);
    }

    @Override
    public String italic(String inner) {
        return span("_", inner);
    }

    @Override
    public String strike(String inner) {
        return span("~", inner);
    }

    /** A span XEP-0393 recognises only when its content neither starts nor ends with white space; otherwise the plain text. */
    private static String span(String marker, String inner) {
        if (inner.isBlank() || Character.isWhitespace(inner.charAt(0)) || Character.isWhitespace(inner.charAt(inner.length() - 1))) {
            return inner;
        }
        return marker + inner + marker;
    }

    @Override
    public String code(String raw) {
        return raw.isBlank() || raw.contains("`") ? raw : "`" + raw + "`";
    }

    @Override
    public String link(String inner, String plain, String url) {
        if (url == null || url.isBlank() || !url.strip().matches("(?i)(https?://|mailto:|xmpp:)\\S+")) {
            return inner;
        }
        String target = url.strip();
        return plain.strip().equals(target) || plain.isBlank() ? target : inner + " (" + target + ")";
    }

    @Override
    public String codeBlock(String raw, String language) {
        // a line of three backticks inside would end the block early
        String body = raw.replaceAll("(?m)^```", "`\u200b``");
        return "```" + language + "\n" + body + "\n```";
    }

    @Override
    public String heading(String inner, int level) {
        return span("*", inner);
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }
}
