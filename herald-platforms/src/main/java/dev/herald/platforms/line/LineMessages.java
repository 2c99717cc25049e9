package dev.herald.platforms.line;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlainDialect;
import java.util.ArrayList;
import java.util.List;

/**
 * The message objects of one part, at most {@value #MAX_MESSAGES} (what one reply or push takes): the agent's Markdown as
 * plain text (LINE shows no markup), cut into texts of at most {@value #MAX_TEXT} characters; an approval question
 * with quick-reply buttons whose postback data are the commands ({@code /approve}, {@code /approve always},
 * {@code /deny}); a file as an image message when Herald has a public https address LINE can fetch it from, else as a
 * text line.
 */
final class LineMessages {
    /** A text message object holds at most 5,000 characters. */
    static final int MAX_TEXT = 5000;
    /** A reply or push carries at most 5 message objects. */
    static final int MAX_MESSAGES = 5;
    /** An image LINE fetches is at most 10 MB (JPEG or PNG). */
    static final long MAX_IMAGE_BYTES = 10L * 1024 * 1024;
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new PlainDialect());

    private LineMessages() {
    }

    /** The answer as LINE shows it. */
    static String render(String markdown) {
        return PLAIN.render(markdown);
    }

    /**
     * The message objects of text {@code m}: the rendered text in pieces of at most {@link #MAX_TEXT} (cut at a line
     * break or a space where one is near, else anywhere but inside a surrogate pair), the buttons on the last.
     */
    static ArrayNode text(OutboundMessage m) {
        String text = render(m.text());
        if (text.isBlank()) {
            text = m.text().isBlank() ? "…" : m.text();
        }
        List<String> pieces = split(text, true);
        if (pieces.size() > MAX_MESSAGES) {
            pieces = split(text, false);
        }
        ArrayNode out = JsonHttp.JSON.createArrayNode();
        for (String p : pieces.subList(0, Math.min(MAX_MESSAGES, pieces.size()))) {
            out.addObject().put("type", "text").put("text", p);
        }
        if (m.kind() == MessageKind.PROMPT && m.text().contains("/approve")) {
            ObjectNode last = (ObjectNode) out.get(out.size() - 1);
            ArrayNode items = last.putObject("quickReply").putArray("items");
            button(items, "Approve", "/approve");
            button(items, "Always", "/approve always");
            button(items, "Deny", "/deny");
        }
        return out;
    }

    private static void button(ArrayNode items, String label, String command) {
        items.addObject().put("type", "action").putObject("action").put("type", "postback").put("label", label).put("data", command)
                .put("displayText", command);
    }

    static List<String> split(String text, boolean atBreaks) {
        List<String> out = new ArrayList<>();
        String rest = text;
        while (rest.length() > MAX_TEXT) {
            int cut = MAX_TEXT;
            if (atBreaks) {
                int nl = rest.lastIndexOf('\n', MAX_TEXT);
                int sp = rest.lastIndexOf(' ', MAX_TEXT);
                int at = nl > MAX_TEXT / 2 ? nl : sp > MAX_TEXT / 2 ? sp : -1;
                if (at > 0) {
                    cut = at;
                }
            }
            if (Character.isHighSurrogate(rest.charAt(cut - 1))) {
                cut--;
            }
            out.add(rest.substring(0, cut));
            rest = rest.substring(cut);
            if (atBreaks && !rest.isEmpty() && (rest.charAt(0) == '\n' || rest.charAt(0) == ' ')) {
                rest = rest.substring(1);
            }
        }
        if (!rest.isEmpty() || out.isEmpty()) {
            out.add(rest);
        }
        return out;
    }

    /**
     * The message objects of file part {@code m}: its caption as text, then an image message fetched from {@code url}
     * when the file is a JPEG or PNG within LINE's limit and {@code url} is set; any other file, or any file without a
     * public address, is a text line naming it (and its link, when there is one).
     */
    static ArrayNode file(OutboundMessage m, String url) {
        OutboundFile f = m.file();
        ArrayNode out = JsonHttp.JSON.createArrayNode();
        String caption = render(m.text());
        if (!caption.isBlank()) {
            out.addObject().put("type", "text").put("text", caption.length() > MAX_TEXT ? caption.substring(0, MAX_TEXT - 1) + "…" : caption);
        }
        boolean image = f.mimeType().equals("image/jpeg") || f.mimeType().equals("image/png");
        if (url != null && image && f.size() <= MAX_IMAGE_BYTES) {
            out.addObject().put("type", "image").put("originalContentUrl", url).put("previewImageUrl", url);
        } else if (url != null) {
            out.addObject().put("type", "text").put("text", "\uD83D\uDCCE " + f.name() + " (" + OutboundFile.size(f.size()) + "): " + url);
        } else {
            out.addObject().put("type", "text").put("text", "\uD83D\uDCCE " + f.name() + " (" + OutboundFile.size(f.size())
                    + ") was not sent: LINE takes files only from a public https address, and this Herald has none (platforms.line.public_url)");
        }
        return out;
    }
}
