package dev.herald.platforms.feishu;

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
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Reads one decrypted, token-checked schema 2.0 event into what Herald acts on. {@code im.message.receive_v1}: text,
 * post (rich text: its text runs, links and images), image, file, audio and media messages; the files by their keys,
 * fetched later through the message resource API (never by a URL). A group message is read only when it @mentions the
 * bot (with {@code require_mention}), and the mention's {@code @_user_N} placeholder is cut out; other mentions become
 * {@code @name}. Sessions: a p2p chat is the user's DM; a group is one chat, and a message in a thread (it has a
 * {@code thread_id}) is in the thread named by its {@code root_id}. {@code card.action.trigger}: a press of one of
 * Herald's approval buttons is the command the button's {@code value} names. Everything else is {@link Read#skipped()}.
 */
final class FeishuEvents {
    /** The commands an approval button may stand for; a value naming anything else is ignored. */
    static final Map<String, String> BUTTONS = Map.of("approve", "/approve", "approve_always", "/approve always", "deny", "/deny");
    /** The start of a card press's dedupe key. */
    static final String CARD_PREFIX = "card:";
    static final Pattern OPEN_ID = Pattern.compile("ou_[A-Za-z0-9_-]{1,64}");
    static final Pattern CHAT_ID = Pattern.compile("oc_[A-Za-z0-9_-]{1,64}");
    static final Pattern MESSAGE_ID = Pattern.compile("om_[A-Za-z0-9_-]{1,64}");
    static final Pattern KEY = Pattern.compile("[A-Za-z0-9_-]{1,128}");
    private static final Pattern EVENT_ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");
    private static final int MAX_TEXT = 65_536;

    /** What one event is: a message for the gateway, or a reason it was skipped. */
    record Read(MessageEvent event, String skipped) {
    }

    private final Platform platform;
    private final boolean requireMention;
    private final Supplier<String> botOpenId;

    FeishuEvents(Platform platform, boolean requireMention, Supplier<String> botOpenId) {
        this.platform = platform;
        this.requireMention = requireMention;
        this.botOpenId = botOpenId;
    }

    Read read(JsonNode root, Instant now) {
        JsonNode header = root.path("header");
        String type = header.path("event_type").asText("");
        String eventId = header.path("event_id").asText("");
        if (!EVENT_ID.matcher(eventId).matches()) {
            return skip("an event of type " + clip(type) + " without a usable event_id");
        }
        return switch (type) {
            case "im.message.receive_v1" -> message(root.path("event"), eventId, now);
            case "card.action.trigger" -> card(root.path("event"), eventId, now);
            default -> skip("event " + eventId + " of type " + clip(type) + ", which Herald does not read");
        };
    }

    private Read message(JsonNode e, String eventId, Instant now) {
        JsonNode sender = e.path("sender");
        if (!sender.path("sender_type").asText("user").equals("user")) {
            return skip("event " + eventId + ": a message from a " + clip(sender.path("sender_type").asText()) + ", not a user");
        }
        String user = sender.path("sender_id").path("open_id").asText("");
        JsonNode m = e.path("message");
        String messageId = m.path("message_id").asText("");
        String chatId = m.path("chat_id").asText("");
        String chatType = m.path("chat_type").asText("");
        String type = m.path("message_type").asText("");
        if (!OPEN_ID.matcher(user).matches() || !MESSAGE_ID.matcher(messageId).matches() || !CHAT_ID.matcher(chatId).matches()) {
            return skip("event " + eventId + ": a " + clip(type) + " message without a usable sender open_id, message_id or chat_id");
        }
        boolean group = chatType.equals("group");
        if (!group && !chatType.equals("p2p")) {
            return skip("event " + eventId + ": a message in a chat of type " + clip(chatType));
        }
        JsonNode content;
        try {
            content = JsonHttp.JSON.readTree(m.path("content").asText(""));
        } catch (IOException e2) {
            return skip("message " + messageId + ": its content is not JSON");
        }
        if (content == null || !content.isObject()) {
            return skip("message " + messageId + ": its content is not a JSON object");
        }
        String bot = botOpenId.get();
        boolean mentioned = false;
        String text = "";
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        switch (type) {
            case "text" -> text = content.path("text").asText("");
            case "post" -> text = post(content, messageId, media);
            case "image" -> ref(media, "photo", "image", messageId, content.path("image_key").asText(""), null, null);
            case "file" -> ref(media, "document", "file", messageId, content.path("file_key").asText(""), null,
                    content.path("file_name").asText(null));
            case "audio" -> ref(media, "voice", "file", messageId, content.path("file_key").asText(""), "audio/opus", null);
            case "media" -> ref(media, "video", "file", messageId, content.path("file_key").asText(""), "video/mp4",
                    content.path("file_name").asText(null));
            default -> {
                return skip("message " + messageId + " of type " + clip(type) + ", which Herald does not read");
            }
        }
        for (JsonNode who : m.path("mentions")) {
            String key = who.path("key").asText("");
            String id = who.path("id").path("open_id").asText("");
            boolean self = bot != null ? id.equals(bot) : false;
            mentioned |= self;
            if (!key.isEmpty() && text.contains(key)) {
                text = text.replace(key, self ? "" : "@" + clip(who.path("name").asText("someone")));
            }
        }
        text = text.replaceAll("[ \\t]{2,}", " ").strip();
        if (group && requireMention && !mentioned) {
            return skip("message " + messageId + " in group " + chatId + " does not @mention the bot"
                    + (bot == null ? " (the bot's open_id is not known yet)" : ""));
        }
        if (!type.equals("text") && !type.equals("post") && media.isEmpty()) {
            return skip("message " + messageId + " of type " + type + " without a usable file or image key");
        }
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        if (text.isBlank() && media.isEmpty()) {
            return skip("message " + messageId + " with nothing in it");
        }
        String thread = group && !m.path("thread_id").asText("").isEmpty() && MESSAGE_ID.matcher(m.path("root_id").asText("")).matches()
                ? m.path("root_id").asText() : null;
        SessionSource source = new SessionSource(platform, chatId, group ? ChatType.GROUP : ChatType.DM, user, null, thread, null);
        return new Read(new MessageEvent(EventIds.next(), source, text, messageId, null, media, MessageEvent.Origin.USER, now), null);
    }

    /** A post's text: its title, then each paragraph's runs; {@code img} runs become media of the message. */
    private static String post(JsonNode content, String messageId, List<MessageEvent.MediaRef> media) {
        JsonNode body = content;
        if (!body.has("content")) { // a post wrapped in a locale ({"zh_cn": {...}}), as when it is sent
            var values = content.elements();
            body = values.hasNext() ? values.next() : JsonHttp.JSON.missingNode();
        }
        StringBuilder sb = new StringBuilder();
        String title = body.path("title").asText("");
        if (!title.isBlank()) {
            sb.append(title).append('\n');
        }
        for (JsonNode paragraph : body.path("content")) {
            for (JsonNode run : paragraph) {
                switch (run.path("tag").asText("")) {
                    case "text", "md" -> sb.append(run.path("text").asText(""));
                    case "a" -> sb.append(run.path("text").asText("")).append(run.path("href").isTextual() ? " (" + clip(run.path("href").asText())
                            + ")" : "");
                    case "at" -> sb.append(run.path("user_id").asText("").startsWith("@_") ? run.path("user_id").asText()
                            : "@" + clip(run.path("user_name").asText("someone")));
                    case "code_block" -> sb.append("\n```\n").append(run.path("text").asText("")).append("\n```\n");
                    case "img" -> ref(media, "photo", "image", messageId, run.path("image_key").asText(""), null, null);
                    case "media" -> ref(media, "video", "file", messageId, run.path("file_key").asText(""), "video/mp4", null);
                    default -> { }
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** A media reference {@code <resource type>:<message_id>:<key>}, for {@link FeishuAdapter#fetch}. */
    private static void ref(List<MessageEvent.MediaRef> out, String kind, String resourceType, String messageId, String key, String mime,
            String name) {
        if (KEY.matcher(key).matches() && out.size() < 20) {
            out.add(new MessageEvent.MediaRef(kind, resourceType + ":" + messageId + ":" + key, mime, name == null || name.isBlank() ? null
                    : clip(name), -1));
        }
    }

    /**
     * A card press. The button's value is what Herald put on it: the command, and the chat type and thread of the chat
     * the card went to (the callback names the chat but not its type), so the command reaches the session that asked.
     */
    private Read card(JsonNode e, String eventId, Instant now) {
        String user = e.path("operator").path("open_id").asText("");
        JsonNode value = e.path("action").path("value");
        String command = BUTTONS.get(value.path("herald").asText(""));
        String chatId = e.path("context").path("open_chat_id").asText("");
        if (command == null) {
            return skip("card press " + eventId + " on a button that is not one of Herald's approval buttons");
        }
        if (!OPEN_ID.matcher(user).matches() || !CHAT_ID.matcher(chatId).matches()) {
            return skip("card press " + eventId + " without a usable operator open_id or open_chat_id");
        }
        boolean group = value.path("chat_type").asText("").equals("group");
        String thread = value.path("thread").asText("");
        SessionSource source = new SessionSource(platform, chatId, group ? ChatType.GROUP : ChatType.DM, user, null,
                group && MESSAGE_ID.matcher(thread).matches() ? thread : null, null);
        return new Read(new MessageEvent(EventIds.next(), source, command, CARD_PREFIX + eventId, null, List.of(), MessageEvent.Origin.USER,
                now), null);
    }

    private static Read skip(String why) {
        return new Read(null, why);
    }

    static String clip(String s) {
        String clean = s == null ? "" : s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 120 ? clean.substring(0, 120) + "..." : clean;
    }
}
