package dev.herald.platforms.common;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.commonmark.ext.gfm.strikethrough.Strikethrough;
import org.commonmark.ext.gfm.strikethrough.StrikethroughExtension;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TableCell;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.BlockQuote;
import org.commonmark.node.BulletList;
import org.commonmark.node.Code;
import org.commonmark.node.Emphasis;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.HardLineBreak;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.Image;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.Link;
import org.commonmark.node.LinkReferenceDefinition;
import org.commonmark.node.ListBlock;
import org.commonmark.node.ListItem;
import org.commonmark.node.Node;
import org.commonmark.node.OrderedList;
import org.commonmark.node.Paragraph;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.StrongEmphasis;
import org.commonmark.node.Text;
import org.commonmark.node.ThematicBreak;
import org.commonmark.parser.Parser;

/**
 * An answer written in Markdown (CommonMark with GFM tables and {@code ~~strikethrough~~}), rewritten in
 * a chat platform's own dialect. The answer is parsed once (commonmark-java) and walked block by block;
 * the {@link MarkdownDialect} decides how each construct looks, so every platform gets the same reading
 * of the answer and only the spelling differs.
 *
 * <p>Choices made for every dialect: blocks are separated by one blank line (tight lists by a line
 * break); a soft line break stays a line break (chat answers are written line by line); tables become
 * code blocks with aligned columns (no chat platform draws tables); images become links; raw HTML is
 * shown as text. Whatever the input, the output is well formed for the dialect: markup is produced only
 * by the dialect, around content it has escaped.
 */
public final class ChatMarkdown {
    private static final Parser PARSER = Parser.builder()
            .extensions(List.of(TablesExtension.create(), StrikethroughExtension.builder().requireTwoTildes(true).build()))
            .build();

    private final MarkdownDialect dialect;

    public ChatMarkdown(MarkdownDialect dialect) {
        this.dialect = Objects.requireNonNull(dialect, "dialect");
    }

    /** The answer in this dialect. */
    public String render(String markdown) {
        if (markdown == null || markdown.isEmpty()) {
            return "";
        }
        return blocks(PARSER.parse(markdown), 0).strip();
    }

    // ---- blocks ---------------------------------------------------------------------------------

    /** The child blocks of {@code parent}, separated by a blank line (or a line break in a tight list). */
    private String blocks(Node parent, int depth) {
        boolean tight = parent instanceof ListItem && parent.getParent() instanceof ListBlock l && l.isTight();
        StringBuilder out = new StringBuilder();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNext()) {
            String block = block(n, depth);
            if (block.isEmpty()) {
                continue;
            }
            if (!out.isEmpty()) {
                out.append(tight ? "\n" : "\n\n");
            }
            out.append(block);
        }
        return out.toString();
    }

    private String block(Node n, int depth) {
        return switch (n) {
            case Paragraph p -> inlines(p);
            case Heading h -> dialect.heading(inlines(h), h.getLevel());
            case BlockQuote q -> dialect.quote(blocks(q, depth));
            case ListBlock list -> list(list, depth);
            case FencedCodeBlock f -> dialect.codeBlock(trimNewline(f.getLiteral()), language(f.getInfo()));
            case IndentedCodeBlock c -> dialect.codeBlock(trimNewline(c.getLiteral()), "");
            case HtmlBlock h -> dialect.text(trimNewline(h.getLiteral()));
            case ThematicBreak t -> dialect.rule();
            case TableBlock t -> dialect.codeBlock(table(t), "");
            case LinkReferenceDefinition d -> "";
            default -> blocks(n, depth);
        };
    }

    private String list(ListBlock list, int depth) {
        StringBuilder out = new StringBuilder();
        int number = list instanceof OrderedList o && o.getMarkerStartNumber() != null ? o.getMarkerStartNumber() : 1;
        for (Node item = list.getFirstChild(); item != null; item = item.getNext()) {
            String marker = list instanceof BulletList ? dialect.bullet(depth) : dialect.text(number++ + ". ");
            String body = blocks(item, depth + 1);
            String indent = " ".repeat(Math.max(2, visibleWidth(marker)));
            if (!out.isEmpty()) {
                out.append(list.isTight() ? "\n" : "\n\n");
            }
            out.append(marker).append(body.replace("\n", "\n" + indent));
        }
        return out.toString();
    }

    /** A table as aligned columns of plain cell text, the header underlined. */
    private static String table(TableBlock table) {
        List<List<String>> rows = new ArrayList<>();
        int header = 0;
        for (Node section = table.getFirstChild(); section != null; section = section.getNext()) {
            for (Node row = section.getFirstChild(); row != null; row = row.getNext()) {
                List<String> cells = new ArrayList<>();
                boolean isHeader = false;
                for (Node cell = row.getFirstChild(); cell != null; cell = cell.getNext()) {
                    cells.add(plain(cell).strip());
                    isHeader |= cell instanceof TableCell c && c.isHeader();
                }
                rows.add(cells);
                if (isHeader) {
                    header = rows.size();
                }
            }
        }
        int columns = rows.stream().mapToInt(List::size).max().orElse(0);
        int[] width = new int[columns];
        for (List<String> r : rows) {
            for (int i = 0; i < r.size(); i++) {
                width[i] = Math.max(width[i], r.get(i).codePointCount(0, r.get(i).length()));
            }
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            List<String> cells = rows.get(r);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                String cell = i < cells.size() ? cells.get(i) : "";
                line.append(i == 0 ? "" : " | ").append(cell).append(" ".repeat(width[i] - cell.codePointCount(0, cell.length())));
            }
            out.append(line.toString().stripTrailing()).append('\n');
            if (r + 1 == header) {
                StringBuilder rule = new StringBuilder();
                for (int i = 0; i < columns; i++) {
                    rule.append(i == 0 ? "" : "-+-").append("-".repeat(width[i]));
                }
                out.append(rule).append('\n');
            }
        }
        return trimNewline(out.toString());
    }

    // ---- inlines --------------------------------------------------------------------------------

    private String inlines(Node parent) {
        StringBuilder out = new StringBuilder();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNext()) {
            out.append(inline(n));
        }
        return out.toString();
    }

    private String inline(Node n) {
        return switch (n) {
            case Text t -> dialect.text(t.getLiteral());
            case Code c -> dialect.code(c.getLiteral());
            case StrongEmphasis s -> dialect.bold(inlines(s));
            case Emphasis e -> dialect.italic(inlines(e));
            case Strikethrough s -> dialect.strike(inlines(s));
            case Link l -> dialect.link(inlines(l), plain(l), l.getDestination());
            case Image i -> dialect.link(dialect.text(imageText(i)), imageText(i), i.getDestination());
            case SoftLineBreak b -> "\n";
            case HardLineBreak b -> "\n";
            case HtmlInline h -> dialect.text(h.getLiteral());
            default -> inlines(n);
        };
    }

    private static String imageText(Image i) {
        String alt = plain(i);
        return alt.isBlank() ? "image" : alt;
    }

    /** The text of a node without any markup. */
    static String plain(Node parent) {
        StringBuilder out = new StringBuilder();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNext()) {
            switch (n) {
                case Text t -> out.append(t.getLiteral());
                case Code c -> out.append(c.getLiteral());
                case SoftLineBreak b -> out.append(' ');
                case HardLineBreak b -> out.append(' ');
                case HtmlInline h -> out.append(h.getLiteral());
                default -> out.append(plain(n));
            }
        }
        return out.toString();
    }

    private static String language(String info) {
        if (info == null || info.isBlank()) {
            return "";
        }
        String first = info.strip().split("\\s+", 2)[0];
        return first.matches("[A-Za-z0-9_+#.-]{1,32}") ? first : "";
    }

    private static String trimNewline(String s) {
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    private static int visibleWidth(String marker) {
        return marker.replaceAll("<[^>]*>", "").replaceAll("&[a-z]+;", "x").replace("\\", "").length();
    }
}
