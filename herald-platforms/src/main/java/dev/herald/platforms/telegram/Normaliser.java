package dev.herald.platforms.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns one Telegram update into Herald's {@link MessageEvent}, or nothing when the update is not for
 * the agent (an edit, a service message, a command addressed to another bot).
 *
 * <ul>
 *   <li>chat types: {@code private} is a DM; {@code group} and {@code supergroup} are groups; a
 *       {@code channel} post is a channel (its author is the channel itself);</li>
 *   <li>forum topics: a message with {@code is_topic_message} carries its topic's
 *       {@code message_thread_id} as the thread, so a topic is its own conversation;</li>
 *   <li>commands: {@code /cmd@thisbot args} becomes {@code /cmd args}; {@code /cmd@otherbot} is dropped;</li>
 *   <li>text is the message text, else its caption; photos (largest size), documents, voice, audio,
 *       video and stickers become media references by {@code file_id};</li>
 *   <li>message ids are {@code <chat_id>:<message_id>} (Telegram's ids are unique per chat only);</li>
 *   <li>with {@code require_mention}, a group message counts only when it mentions the bot ({@code @username}, or a
 *       {@code text_mention} of its id), answers one of its messages, or is a command; the mention is taken out of the
 *       text. Private chats and channel posts always count.</li>
 * </ul>
 */
final class Normaliser {
    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("-?[0-9]{1,20}");
    private final Platform platform;
    private final boolean requireMention;
    private volatile dev.herald.core.platform.ChannelOverrides overrides = dev.herald.core.platform.ChannelOverrides.NONE;
    private volatile String botUsername;
    private volatile java.util.regex.Pattern selfMention = java.util.regex.Pattern.compile("(?!)");
    private volatile String botId;

    /** A normaliser that answers every group message. */
    Normaliser(Platform platform) {
        this(platform, false);
    }

    Normaliser(Platform platform, boolean requireMention) {
        this.platform = platform;
        this.requireMention = requireMention;
    }

    /** The operator's settings for single chats: a group's {@code require_mention} wins over the platform's. */
    void useChannels(dev.herald.core.platform.ChannelOverrides o) {
        this.overrides = java.util.Objects.requireNonNull(o, "overrides");
    }

    /** The bot's own username (from getMe), to recognise commands addressed to it. */
    void botUsername(String username) {
        this.botUsername = username == null ? null : username.toLowerCase(Locale.ROOT);
        this.selfMention = username == null ? java.util.regex.Pattern.compile("(?!)")
                : java.util.regex.Pattern.compile("@" + java.util.regex.Pattern.quote(username) + "(?![A-Za-z0-9_])[,:]? ?",
                        java.util.regex.Pattern.CASE_INSENSITIVE);
    }

    /** Who the bot is, from getMe's {@code result}: its username and its user id (replies to it and text mentions of it). */
    void bot(JsonNode me) {
        botUsername(me.path("username").asText(null));
        this.botId = id(me.path("id"));
    }

    Optional<MessageEvent> event(JsonNode update, Instant receivedAt) {
        JsonNode m = update.has("message") ? update.get("message") : update.get("channel_post");
        if (m == null || !m.has("chat")) {
            return Optional.empty();
        }
        JsonNode chat = m.get("chat");
        String chatId = id(chat.path("id"));
        if (chatId == null) {
            return Optional.empty();
        }
        String text = m.hasNonNull("text") ? m.get("text").asText() : m.path("caption").asText("");
        List<MessageEvent.MediaRef> media = media(m);
        if (text.isBlank() && media.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> addressed = addressed(text);
        if (addressed.isEmpty()) {
            return Optional.empty();
        }
        ChatType type = chatType(chat.path("type").asText());
        if (type == ChatType.GROUP && overrides.requireMention(platform, chatId, requireMention)) {
            Optional<String> spoken = forTheBot(m, text, addressed.get());
            if (spoken.isEmpty() || spoken.get().isEmpty() && media.isEmpty()) {
                return Optional.empty();
            }
            addressed = spoken;
        }
        SessionSource source = new SessionSource(platform, chatId, type, userId(m), userName(m), thread(m), chatName(chat));
        String messageNumber = id(m.path("message_id"));
        String messageId = messageNumber == null ? null : chatId + ":" + messageNumber;
        String reply = id(m.path("reply_to_message").path("message_id"));
        String replyTo = reply != null && !isTopicRoot(m) ? chatId + ":" + reply : null;
        return Optional.of(new MessageEvent(EventIds.next(), source, addressed.get(), messageId, replyTo, media,
                MessageEvent.Origin.USER, receivedAt));
    }

    /**
     * In a group with mentions required: the text without the bot's mentions when the message is for the bot (a
     * command, a reply to the bot, a mention of it), else empty.
     */
    private Optional<String> forTheBot(JsonNode m, String raw, String addressed) {
        if (addressed.stripLeading().startsWith("/")) {
            return Optional.of(addressed);
        }
        String self = botId;
        boolean forBot = self != null && !isTopicRoot(m) && self.equals(id(m.path("reply_to_message").path("from").path("id")));
        StringBuilder text = new StringBuilder(raw);
        JsonNode entities = m.hasNonNull("text") ? m.path("entities") : m.path("caption_entities");
        for (int i = entities.isArray() ? entities.size() - 1 : -1; i >= 0; i--) { // from the end, so earlier offsets stay right
            JsonNode e = entities.get(i);
            int offset = e.path("offset").asInt(-1);
            int end = offset + e.path("length").asInt(-1);
            if ("text_mention".equals(e.path("type").asText()) && self != null && self.equals(id(e.path("user").path("id")))
                    && offset >= 0 && end > offset && end <= text.length()) {
                text.delete(offset, end < text.length() && (text.charAt(end) == ',' || text.charAt(end) == ':') ? end + 1 : end);
                forBot = true;
            }
        }
        java.util.regex.Matcher mention = selfMention.matcher(text);
        if (mention.find()) {
            forBot = true;
        }
        return forBot ? Optional.of(mention.replaceAll("").strip()) : Optional.empty();
    }

    /** The text with this bot's {@code @username} removed from a leading command; empty when it names another bot. */
    private Optional<String> addressed(String text) {
        String t = text.stripLeading();
        if (!t.startsWith("/")) {
            return Optional.of(text);
        }
        int end = 0;
        while (end < t.length() && !Character.isWhitespace(t.charAt(end))) {
            end++;
        }
        String word = t.substring(0, end);
        int at = word.indexOf('@');
        if (at < 0) {
            return Optional.of(text);
        }
        String target = word.substring(at + 1).toLowerCase(Locale.ROOT);
        if (botUsername != null && !target.equals(botUsername)) {
            return Optional.empty();
        }
        return Optional.of(word.substring(0, at) + t.substring(end));
    }

    static ChatType chatType(String type) {
        return switch (type) {
            case "private" -> ChatType.DM;
            case "channel" -> ChatType.CHANNEL;
            default -> ChatType.GROUP;
        };
    }

    static String thread(JsonNode m) {
        return m.path("is_topic_message").asBoolean(false) ? id(m.path("message_thread_id")) : null;
    }

    /** In a forum, a message that starts a reply chain points at the topic's creation message; that is not a reply. */
    private static boolean isTopicRoot(JsonNode m) {
        return m.path("is_topic_message").asBoolean(false)
                && m.path("reply_to_message").path("message_id").asText().equals(m.path("message_thread_id").asText());
    }

    static String userId(JsonNode m) {
        return m.path("from").has("id") ? id(m.get("from").get("id")) : id(m.path("sender_chat").path("id"));
    }

    /**
     * A Telegram id (chat, user, message, topic: all integers) as decimal text, or null when the field is
     * missing or is not an integer: such an update is not one Telegram sends, and its text must never name a
     * session or a file.
     */
    static String id(JsonNode node) {
        if (node.isIntegralNumber()) {
            return node.bigIntegerValue().toString();
        }
        if (node.isTextual() && ID.matcher(node.asText()).matches()) {
            return node.asText();
        }
        return null;
    }

    static String userName(JsonNode m) {
        JsonNode from = m.has("from") ? m.get("from") : m.path("sender_chat");
        for (String field : List.of("username", "first_name", "title")) {
            if (from.hasNonNull(field) && !from.get(field).asText().isBlank()) {
                return from.get(field).asText();
            }
        }
        return null;
    }

    static String chatName(JsonNode chat) {
        for (String field : List.of("title", "username", "first_name")) {
            if (chat.hasNonNull(field) && !chat.get(field).asText().isBlank()) {
                return chat.get(field).asText();
            }
        }
        return null;
    }

    private static List<MessageEvent.MediaRef> media(JsonNode m) {
        List<MessageEvent.MediaRef> out = new ArrayList<>();
        JsonNode photos = m.path("photo");
        if (photos.isArray() && !photos.isEmpty()) {
            JsonNode largest = photos.get(photos.size() - 1);
            out.add(new MessageEvent.MediaRef("photo", largest.path("file_id").asText(), "image/jpeg", null,
                    largest.path("file_size").asLong(-1)));
        }
        for (String kind : List.of("document", "voice", "audio", "video", "sticker")) {
            JsonNode item = m.path(kind);
            if (item.hasNonNull("file_id")) {
                out.add(new MessageEvent.MediaRef(kind, item.get("file_id").asText(),
                        item.hasNonNull("mime_type") ? item.get("mime_type").asText() : null,
                        item.hasNonNull("file_name") ? item.get("file_name").asText() : null, item.path("file_size").asLong(-1)));
            }
        }
        return out;
    }
}
