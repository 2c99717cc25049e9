package dev.herald.platforms.ntfy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Reads one line of ntfy's JSON stream: {@code {"id","time","event","topic","message","title","tags","priority",
 * "attachment":{"name","type","size","url"}}}. A {@code message} of the configured topic becomes a
 * {@link MessageEvent} of the topic's chat (the topic is the chat and, as ntfy names no sender, the user too); its
 * title, when set, is the text's first line, its attachment a media reference by URL. A message carrying Herald's own
 * tag, or whose id Herald published, is {@link Line#own()}. {@code open}, {@code keepalive} and {@code poll_request}
 * events carry nothing to answer. Nothing here throws but for a line that is not JSON.
 */
final class NtfyEvents {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9]{1,64}");
    private static final int MAX_TEXT = 65_536;

    /**
     * One line: its event, the message id (null for events without one), the event for the gateway (null when there is
     * nothing to answer), whether Herald published it, and why it was skipped.
     */
    record Line(String event, String id, MessageEvent message, boolean own, String skipped) {
    }

    private final Platform platform;
    private final String topic;
    private final String ownTag;
    private final Predicate<String> publishedByHerald;

    NtfyEvents(Platform platform, String topic, String ownTag, Predicate<String> publishedByHerald) {
        this.platform = platform;
        this.topic = topic;
        this.ownTag = ownTag;
        this.publishedByHerald = publishedByHerald;
    }

    Line read(String line, Instant now) throws IOException {
        JsonNode m = JsonHttp.JSON.readTree(line);
        if (m == null || !m.isObject()) {
            return new Line("?", null, null, false, "a line that is not a JSON object");
        }
        String event = m.path("event").asText("");
        String id = m.path("id").isTextual() && ID.matcher(m.path("id").asText()).matches() ? m.path("id").asText() : null;
        if (!event.equals("message")) {
            return new Line(clip(event), null, null, false,
                    event.equals("open") || event.equals("keepalive") ? null : "an event " + clip(event));
        }
        if (id == null) {
            return new Line(event, null, null, false, "a message without a usable id");
        }
        if (!topic.equals(m.path("topic").asText(topic))) {
            return new Line(event, id, null, false, "a message of topic " + clip(m.path("topic").asText()) + ", not " + topic);
        }
        boolean own = publishedByHerald.test(id);
        for (JsonNode t : m.path("tags")) {
            own |= ownTag.equals(t.asText(""));
        }
        if (own) {
            return new Line(event, id, null, true, null);
        }
        String text = m.path("message").isTextual() ? m.path("message").asText() : "";
        String title = m.path("title").isTextual() ? m.path("title").asText().strip() : "";
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        JsonNode a = m.path("attachment");
        if (a.isObject() && a.path("url").isTextual() && !a.path("url").asText().isBlank()) {
            String type = a.path("type").isTextual() ? clip(a.path("type").asText()) : null;
            String kind = type != null && type.startsWith("image/") ? "photo" : "document";
            String name = a.path("name").isTextual() ? clip(a.path("name").asText()) : null;
            media.add(new MessageEvent.MediaRef(kind, a.path("url").asText(), type, name, a.path("size").asLong(-1)));
            if (name != null && text.equals("You received a file: " + name)) {
                text = ""; // ntfy's default text for an attachment without a message
            }
        }
        if (!title.isEmpty() && !text.isBlank()) {
            text = title + "\n" + text;
        } else if (!title.isEmpty()) {
            text = title;
        }
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        if (text.isBlank() && media.isEmpty()) {
            return new Line(event, id, null, false, "a message " + id + " with nothing in it");
        }
        SessionSource source = new SessionSource(platform, topic, ChatType.DM, topic, null, null, topic);
        MessageEvent e = new MessageEvent(EventIds.next(), source, text, id, null, media, MessageEvent.Origin.USER, now);
        return new Line(event, id, e, false, null);
    }

    static String clip(String s) {
        String clean = s == null ? "" : s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 120 ? clean.substring(0, 120) + "..." : clean;
    }
}
