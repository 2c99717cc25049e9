package dev.herald.agent.tool;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.Set;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.parser.Parser;
import org.jsoup.select.NodeTraversor;
import org.jsoup.select.NodeVisitor;

/**
 * HTML reduced to readable text in time linear in its length: jsoup's parser (no regular expressions over
 * the page), then one walk that keeps text, drops scripts, styles and other non-text elements, puts block
 * elements on their own lines and collapses whitespace as it writes. The {@link WorkBudget} is checked on every
 * read of the input and every few hundred nodes, so a stop or the time limit ends the work at once.
 */
final class HtmlText {
    private static final Set<String> SKIPPED = Set.of("script", "style", "noscript", "svg", "template", "iframe", "object", "canvas");
    private static final Set<String> BLOCKS = Set.of("address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt",
            "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
            "ol", "p", "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "td", "th", "ul", "title", "body", "caption", "summary",
            "details");

    private HtmlText() {
    }

    static String toText(String html, WorkBudget budget) {
        Document document = Parser.htmlParser().parseInput(new BudgetReader(new StringReader(html), budget), "");
        budget.check();
        Writer writer = new Writer(budget);
        Element title = document.head().selectFirst("title");
        if (title != null) {
            NodeTraversor.traverse(writer, title);
            writer.block();
        }
        NodeTraversor.traverse(writer, document.body());
        return writer.out.toString();
    }

    /** Writes text nodes with collapsed whitespace; skips the subtrees of {@link #SKIPPED} elements. */
    private static final class Writer implements NodeVisitor {
        private final WorkBudget budget;
        final StringBuilder out = new StringBuilder();
        private boolean space;
        private boolean newline;
        private int skipping;
        private int nodes;

        Writer(WorkBudget budget) {
            this.budget = budget;
        }

        @Override
        public void head(Node node, int depth) {
            if (++nodes % 256 == 0) {
                budget.check();
            }
            if (node instanceof Element e) {
                if (SKIPPED.contains(e.normalName())) {
                    skipping++;
                } else if (skipping == 0 && BLOCKS.contains(e.normalName())) {
                    block();
                }
            } else if (node instanceof TextNode t && skipping == 0) {
                write(t.getWholeText());
            }
        }

        @Override
        public void tail(Node node, int depth) {
            if (node instanceof Element e) {
                if (SKIPPED.contains(e.normalName())) {
                    skipping--;
                } else if (skipping == 0 && BLOCKS.contains(e.normalName())) {
                    block();
                }
            }
        }

        void block() {
            newline = out.length() > 0;
        }

        private void write(String text) {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (Character.isWhitespace(c) || c == '\u00a0') {
                    space = out.length() > 0;
                    continue;
                }
                if (newline) {
                    out.append('\n');
                } else if (space) {
                    out.append(' ');
                }
                newline = false;
                space = false;
                out.append(c);
            }
        }
    }

    /** Checks the budget on every read, so parsing a hostile page stops with the call. */
    private static final class BudgetReader extends Reader {
        private final Reader in;
        private final WorkBudget budget;

        BudgetReader(Reader in, WorkBudget budget) {
            this.in = in;
            this.budget = budget;
        }

        @Override
        public int read(char[] buffer, int offset, int length) throws IOException {
            budget.check();
            return in.read(buffer, offset, Math.min(length, 8_192));
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
