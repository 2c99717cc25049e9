package dev.herald.platforms.line;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.JsonHttp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads one webhook call's body (already verified by its signature) into what Herald acts on: {@code events[]} of type
 * {@code message} (text, image, video, audio, file, sticker, location) and {@code postback} become messages for the
 * gateway; {@code follow}, {@code unfollow}, {@code join} and {@code leave} are noted for the log; anything else is
 * named in {@link Parsed#skipped()}. Nothing here throws but for a body that is not JSON.
 *
 * <p>Each message's id for the store's dedupe is the event's {@code webhookEventId}, which LINE keeps when it delivers
 * an event again ({@code deliveryContext.isRedelivery}); its media refer to the LINE message id. The chat is the user
 * (1:1), the group or the room; in a group or room, with {@code require_mention}, only a message that mentions the
 * bot itself ({@code mention.mentionees[]} with {@code isSelf}; a mention of everyone does not count) is read, and the
 * mention is cut out of the text. A postback (a pressed quick-reply button) is the command its {@code data} names.
 */
final class LineEvents {
    /** A {@code webhookEventId} (a ULID) or a message id: the store's dedupe key and the content API's path segment. */
    private static final Pattern EVENT_ID = Pattern.compile("[0-9A-Za-z]{1,64}");
    private static final Pattern MESSAGE_ID = Pattern.compile("[0-9]{1,32}");
    private static final Pattern CHAT_ID = Pattern.compile("[UCR][0-9a-f]{32}");
    private static final Pattern REPLY_TOKEN = Pattern.compile("[0-9A-Za-z_-]{1,256}");
    private static final int MAX_TEXT = 65_536;
    /** LINE's limit for a postback's {@code data}. */
    private static final int MAX_POSTBACK = 300;

    /**
     * A message someone sent.
     *
     * @param replyToken  the event's reply token, or null
     * @param at          when the event happened (LINE's timestamp, not after the call's arrival): the reply window starts there
     * @param redelivered LINE delivered the event before ({@code deliveryContext.isRedelivery})
     */
    record Incoming(MessageEvent event, String replyToken, Instant at, boolean redelivered) {
    }

    /** What one call carried: the messages, notes for the log (follow, join, ...) and what was skipped and why. */
    record Parsed(List<Incoming> messages, List<String> notes, List<String> skipped) {
    }

    private final Platform platform;
    private final boolean requireMention;

    LineEvents(Platform platform, boolean requireMention) {
        this.platform = platform;
        this.requireMention = requireMention;
    }

    /**
     * Reads {@code body}.
     *
     * @param now when the call arrived
     * @throws java.io.IOException when the body is not JSON (Jackson's JsonProcessingException)
     */
    Parsed parse(byte[] body, Instant now) throws java.io.IOException {
        JsonNode root = JsonHttp.JSON.readTree(body);
        List<Incoming> messages = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        if (root == null || !root.isObject() || !root.path("events").isArray()) {
            skipped.add("a body without an events array");
            return new Parsed(messages, notes, skipped);
        }
        for (JsonNode e : root.path("events")) {
            event(e, now, messages, notes, skipped);
        }
        return new Parsed(messages, notes, skipped);
    }

    private void event(JsonNode e, Instant now, List<Incoming> out, List<String> notes, List<String> skipped) {
        String type = e.path("type").asText("");
        String eventId = e.path("webhookEventId").isTextual() && EVENT_ID.matcher(e.path("webhookEventId").asText()).matches()
                ? e.path("webhookEventId").asText() : null;
        if (eventId == null) {
            skipped.add("a " + shortText(e.path("type")) + " event without a usable webhookEventId");
            return;
        }
        if (e.path("mode").asText("active").equals("standby")) {
            skipped.add("event " + eventId + " in standby mode (another channel answers this chat)");
            return;
        }
        JsonNode source = e.path("source");
        String sourceType = source.path("type").asText("");
        String userId = id(source.path("userId"));
        String chatId = switch (sourceType) {
            case "user" -> userId;
            case "group" -> id(source.path("groupId"));
            case "room" -> id(source.path("roomId"));
            default -> null;
        };
        if (chatId == null) {
            skipped.add("event " + eventId + " (" + shortText(e.path("type")) + ") from a source without a usable user, group or room id");
            return;
        }
        String where = sourceType.equals("user") ? "user " + chatId : sourceType + " " + chatId;
        switch (type) {
            case "message" -> message(e, eventId, sourceType, chatId, userId, now, out, skipped);
            case "postback" -> {
                String data = e.path("postback").path("data").asText("").strip();
                if (data.isEmpty() || data.length() > MAX_POSTBACK) {
                    skipped.add("postback " + eventId + " without usable data");
                    return;
                }
                out.add(incoming(e, eventId, sourceType, chatId, userId, data, List.of(), now));
            }
            case "follow" -> notes.add(e.path("follow").path("isUnblocked").asBoolean(false) ? where + " unblocked the account" : where + " added the account as a friend");
            case "unfollow" -> notes.add(where + " blocked the account");
            case "join" -> notes.add("the account joined " + where);
            case "leave" -> notes.add("the account left " + where + " (or was removed)");
            default -> skipped.add("event " + eventId + " of type " + shortText(e.path("type")) + ", which Herald does not read");
        }
    }

    private void message(JsonNode e, String eventId, String sourceType, String chatId, String userId, Instant now, List<Incoming> out,
            List<String> skipped) {
        JsonNode m = e.path("message");
        String type = m.path("type").asText("");
        String messageId = m.path("id").isTextual() && MESSAGE_ID.matcher(m.path("id").asText()).matches() ? m.path("id").asText() : null;
        boolean group = !sourceType.equals("user");
        boolean mentioned = false;
        String text = "";
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        switch (type) {
            case "text" -> {
                text = m.path("text").asText("");
                List<int[]> self = new ArrayList<>();
                for (JsonNode who : m.path("mention").path("mentionees")) {
                    if (who.path("isSelf").asBoolean(false) && !who.path("type").asText("user").equals("all")) {
                        mentioned = true;
                        int index = who.path("index").asInt(-1);
                        int length = who.path("length").asInt(-1);
                        if (index >= 0 && length > 0 && index <= text.length() && length <= text.length() - index) {
                            self.add(new int[] {index, length});
                        }
                    }
                }
                self.sort(Comparator.comparingInt((int[] r) -> r[0]).reversed());
                StringBuilder sb = new StringBuilder(text);
                int last = Integer.MAX_VALUE;
                for (int[] r : self) {
                    if (r[0] + r[1] <= last) {
                        sb.delete(r[0], r[0] + r[1]);
                        last = r[0];
                    }
                }
                text = sb.toString().replaceAll("[ \\t]{2,}", " ").strip();
            }
            case "image", "video", "audio", "file" -> {
                if (messageId == null) {
                    skipped.add("a " + type + " message in event " + eventId + " without a usable message id");
                    return;
                }
                String provider = m.path("contentProvider").path("type").asText(type.equals("file") ? "line" : "");
                if (!provider.equals("line")) {
                    text = "[" + type + " sent from an address outside LINE (content provider " + shortText(m.path("contentProvider").path("type"))
                            + "); not fetched]";
                } else {
                    String kind = type.equals("image") ? "photo" : type.equals("file") ? "document" : type;
                    String name = type.equals("file") && m.path("fileName").isTextual() ? clip(m.path("fileName").asText()) : null;
                    long size = type.equals("file") ? m.path("fileSize").asLong(-1) : -1;
                    media.add(new MessageEvent.MediaRef(kind, messageId, null, name, size));
                }
            }
            case "sticker" -> {
                List<String> words = new ArrayList<>();
                for (JsonNode k : m.path("keywords")) {
                    if (k.isTextual() && words.size() < 5) {
                        words.add(clip(k.asText()));
                    }
                }
                text = "[sticker" + (words.isEmpty() ? "" : ": " + String.join(", ", words)) + "]";
            }
            case "location" -> {
                JsonNode l = m;
                text = "[location: " + l.path("latitude").asDouble() + ", " + l.path("longitude").asDouble()
                        + (l.path("title").isTextual() ? " " + clip(l.path("title").asText()) : "")
                        + (l.path("address").isTextual() ? ", " + clip(l.path("address").asText()) : "") + "]";
            }
            default -> {
                skipped.add("a message of type " + shortText(m.path("type")) + " in event " + eventId + ", which Herald does not read");
                return;
            }
        }
        if (group && requireMention && !mentioned) {
            skipped.add("a " + type + " message in event " + eventId + " in " + sourceType + " " + chatId + " that does not mention the bot");
            return;
        }
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        if (text.isBlank() && media.isEmpty()) {
            skipped.add("a " + type + " message in event " + eventId + " with nothing in it");
            return;
        }
        out.add(incoming(e, eventId, sourceType, chatId, userId, text, media, now));
    }

    private Incoming incoming(JsonNode e, String eventId, String sourceType, String chatId, String userId, String text,
            List<MessageEvent.MediaRef> media, Instant now) {
        ChatType chatType = sourceType.equals("user") ? ChatType.DM : ChatType.GROUP;
        SessionSource source = new SessionSource(platform, chatId, chatType, userId, null, null, null);
        MessageEvent event = new MessageEvent(EventIds.next(), source, text, eventId, null, media, MessageEvent.Origin.USER, now);
        String token = e.path("replyToken").isTextual() && REPLY_TOKEN.matcher(e.path("replyToken").asText()).matches()
                ? e.path("replyToken").asText() : null;
        Instant at = now;
        if (e.path("timestamp").canConvertToLong() && e.path("timestamp").asLong() > 0) {
            Instant t = Instant.ofEpochMilli(e.path("timestamp").asLong());
            at = t.isAfter(now) ? now : t;
        }
        return new Incoming(event, token, at, e.path("deliveryContext").path("isRedelivery").asBoolean(false));
    }

    private static String id(JsonNode n) {
        return n.isTextual() && CHAT_ID.matcher(n.asText()).matches() ? n.asText() : null;
    }

    private static String clip(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 200 ? clean.substring(0, 200) + "..." : clean;
    }

    private static String shortText(JsonNode n) {
        return n == null || n.isMissingNode() || n.isNull() ? "none" : "\"" + clip(n.asText()) + "\"";
    }
}
