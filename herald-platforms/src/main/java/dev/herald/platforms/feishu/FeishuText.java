package dev.herald.platforms.feishu;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlainDialect;
import java.nio.charset.StandardCharsets;

/**
 * Answers as Feishu shows them. With {@code markdown} a part is a rich-text {@code post} whose one paragraph is an
 * {@code md} run: Feishu renders {@code **bold**}, {@code *italic*}, {@code ~~strike~~}, links {@code [text](url)},
 * inline {@code `code`} and fenced code blocks in it; headings become bold lines (the run has none) and quotes keep a
 * {@code > } mark. Without it a part is a {@code text} message in {@link PlainDialect}. Both are JSON strings in the
 * message's {@code content} field, whose length (bytes of UTF-8) the gateway splits by.
 */
final class FeishuText extends PlainDialect {
    /** One message's content: the platform takes up to 150 KB for text and 30 KB for a post; Herald splits well below. */
    static final int MAX_CONTENT_BYTES = 20_000;
    private static final ChatMarkdown MARKDOWN = new ChatMarkdown(new FeishuText());
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new PlainDialect());

    static String render(String markdown, boolean asMarkdown) {
        return (asMarkdown ? MARKDOWN : PLAIN).render(markdown);
    }

    /** The msg_type of a text part. */
    static String type(boolean asMarkdown) {
        return asMarkdown ? "post" : "text";
    }

    /** The content JSON string of a text part. */
    static String content(String markdown, boolean asMarkdown) {
        String text = render(markdown, asMarkdown);
        if (text.isBlank()) {
            text = markdown.isBlank() ? "…" : markdown;
        }
        if (!asMarkdown) {
            return JsonHttp.JSON.createObjectNode().put("text", text).toString();
        }
        ObjectNode post = JsonHttp.JSON.createObjectNode();
        ArrayNode paragraphs = post.putObject("zh_cn").putArray("content");
        paragraphs.addArray().addObject().put("tag", "md").put("text", text);
        return post.toString();
    }

    static int bytes(String markdown, boolean asMarkdown) {
        return content(markdown, asMarkdown).getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public String bold(String inner) {
        return inner.isBlank() ? inner : "**" + inner + "**";
    }

    @Override
    public String italic(String inner) {
        return inner.isBlank() ? inner : "*" + inner + "*";
    }

    @Override
    public String strike(String inner) {
        return inner.isBlank() ? inner : "~~" + inner + "~~";
    }

    @Override
    public String code(String raw) {
        return raw.isBlank() || raw.contains("\n") ? raw : "`" + raw.replace("`", "'") + "`";
    }

    @Override
    public String codeBlock(String raw, String language) {
        return "```" + (language == null ? "" : language.replaceAll("[^A-Za-z0-9_+-]", "")) + "\n" + raw.replace("```", "'''") + "\n```";
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
        return bold(inner);
    }

    @Override
    public String quote(String inner) {
        return "> " + inner.replace("\n", "\n> ");
    }
}
