package dev.herald.platforms.matrix;

import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.MarkdownDialect;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Markdown answers as the HTML of Matrix's {@code org.matrix.custom.html} format: {@code <strong>}, {@code <em>},
 * {@code <del>}, {@code <code>}, {@code <pre><code class="language-x">}, {@code <a href>} (http, https and mailto only),
 * {@code <h1>}-{@code <h6>}, {@code <blockquote>}, {@code <hr>}, line breaks as {@code <br>}. Every tag is written here
 * around content this class escaped, so the answer's own HTML is shown as text, never passed through: the output holds
 * only the tags above, balanced, whatever the model wrote.
 */
final class MatrixHtml implements MarkdownDialect {
    private static final ChatMarkdown HTML = new ChatMarkdown(new MatrixHtml());
    /** Marks a newline inside a code block, which stays a newline (the others become {@code <br>}). */
    private static final char KEEP = '\u0000';

    /** The answer as Matrix HTML, for {@code formatted_body}. */
    static String render(String markdown) {
        String html = HTML.render(markdown == null ? "" : markdown.replace(String.valueOf(KEEP), ""));
        html = html.replace("\n", "<br>").replace(KEEP, '\n');
        return html.replaceAll("(</h[1-6]>|</pre>|</blockquote>|<hr>)(<br>)+", "$1").replaceAll("(<br>)+(<h[1-6]>|<pre>|<blockquote>|<hr>)", "$2");
    }

    /** What one message of {@code markdown} weighs in an event: its body and its formatted body, in UTF-8 bytes. */
    static int eventBytes(String markdown) {
        return markdown.getBytes(StandardCharsets.UTF_8).length + render(markdown).getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public String text(String raw) {
        return escape(raw);
    }

    @Override
    public String bold(String inner) {
        return "<strong>" + inner + "</strong>";
    }

    @Override
    public String italic(String inner) {
        return "<em>" + inner + "</em>";
    }

    @Override
    public String strike(String inner) {
        return "<del>" + inner + "</del>";
    }

    @Override
    public String code(String raw) {
        return "<code>" + escape(raw) + "</code>";
    }

    @Override
    public String link(String inner, String plain, String url) {
        String u = url == null ? "" : url.strip();
        String scheme = u.toLowerCase(Locale.ROOT);
        if (!(scheme.startsWith("http://") || scheme.startsWith("https://") || scheme.startsWith("mailto:"))) {
            return inner; // javascript:, data:, relative links: shown as their text only
        }
        return "<a href=\"" + escape(u) + "\">" + inner + "</a>";
    }

    @Override
    public String codeBlock(String raw, String language) {
        String cls = language.isEmpty() ? "" : " class=\"language-" + escape(language) + "\"";
        return "<pre><code" + cls + ">" + escape(raw).replace('\n', KEEP) + "</code></pre>";
    }

    @Override
    public String heading(String inner, int level) {
        int h = Math.max(1, Math.min(6, level));
        return "<h" + h + ">" + inner + "</h" + h + ">";
    }

    @Override
    public String quote(String inner) {
        return "<blockquote>" + inner + "</blockquote>";
    }

    @Override
    public String rule() {
        return "<hr>";
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("'", "&#39;");
    }
}
