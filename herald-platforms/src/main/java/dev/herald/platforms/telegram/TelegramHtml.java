package dev.herald.platforms.telegram;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;
import java.util.Locale;

/**
 * Markdown answers in Telegram's HTML parse mode: {@code <b>}, {@code <i>}, {@code <s>}, {@code <code>},
 * {@code <pre><code class="language-x">}, {@code <a href>}, {@code <blockquote>}; headings are bold
 * lines. Every tag is produced here around escaped content, so the output is always balanced; Telegram
 * can still refuse it (an unknown link scheme, a limit of its own), which is why the adapter falls back
 * to {@link #plain}. Telegram counts its 4,096-character limit on the text after parsing, so
 * {@link #visibleLength} measures that, not the HTML.
 */
final class TelegramHtml implements MarkdownDialect {
    private static final ChatMarkdown HTML = new ChatMarkdown(new TelegramHtml());
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new dev.herald.platforms.common.PlainDialect());

    /** The answer as Telegram HTML (send with {@code parse_mode: HTML}). */
    static String render(String markdown) {
        return HTML.render(markdown);
    }

    /** The answer as plain text without markup, for when Telegram refuses the HTML. */
    static String plain(String markdown) {
        return PLAIN.render(markdown);
    }

    /** The length Telegram counts for the answer: its HTML's text without tags, entities decoded. */
    static int visibleLength(String markdown) {
        return unescape(render(markdown).replaceAll("<[^>]*>", "")).length();
    }

    /**
     * The length a part must fit in both forms Telegram may get it in: the HTML's shown text, and the plain
     * fallback (which spells out link targets, so it can be the longer one).
     */
    static int sendLength(String markdown) {
        return Math.max(visibleLength(markdown), plain(markdown).length());
    }

    @Override
    public String text(String raw) {
        return escape(raw);
    }

    @Override
    public String bold(String inner) {
        return "<b>" + inner + "</b>";
    }

    @Override
    public String italic(String inner) {
        return "<i>" + inner + "</i>";
    }

    @Override
    public String strike(String inner) {
        return "<s>" + inner + "</s>";
    }

    @Override
    public String code(String raw) {
        return "<code>" + escape(raw) + "</code>";
    }

    @Override
    public String link(String inner, String plain, String url) {
        String scheme = url == null ? "" : url.strip().toLowerCase(Locale.ROOT);
        if (!(scheme.startsWith("http://") || scheme.startsWith("https://") || scheme.startsWith("tg://") || scheme.startsWith("mailto:"))) {
            return inner; // Telegram refuses other schemes (and a relative link leads nowhere)
        }
        return "<a href=\"" + escape(url.strip()).replace("\"", "&quot;") + "\">" + inner + "</a>";
    }

    @Override
    public String codeBlock(String raw, String language) {
        String open = language.isEmpty() ? "<pre>" : "<pre><code class=\"language-" + escape(language) + "\">";
        return open + escape(raw) + (language.isEmpty() ? "</pre>" : "</code></pre>");
    }

    @Override
    public String heading(String inner, int level) {
        return "<b>" + inner + "</b>";
    }

    @Override
    public String quote(String inner) {
        return "<blockquote>" + inner + "</blockquote>";
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    static String unescape(String s) {
        return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
    }
}
