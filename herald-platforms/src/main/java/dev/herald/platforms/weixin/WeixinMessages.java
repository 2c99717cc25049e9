package dev.herald.platforms.weixin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.platforms.common.PlatformIds;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the entries of a {@code getupdates} answer. A message: {@code message_id}, {@code from_user_id},
 * {@code to_user_id}, {@code group_id} (set for a group chat), {@code message_type} (1 user, 2 bot),
 * {@code context_token} (to be echoed on replies) and {@code item_list[]}, each item a {@code type}:
 * <ul>
 *   <li>1 text: {@code text_item.text};</li>
 *   <li>2 image: {@code image_item.media} ({@code encrypt_query_param}, {@code aes_key}), {@code image_item.aeskey}
 *       (hex key, preferred when present);</li>
 *   <li>3 voice: {@code voice_item.media}, {@code voice_item.text} (WeChat's own transcription, when it made one);</li>
 *   <li>4 file: {@code file_item.media}, {@code file_item.file_name}, {@code file_item.len} (plaintext bytes, a string);</li>
 *   <li>5 video: {@code video_item.media}, {@code video_item.video_size}.</li>
 * </ul>
 * Everything is untrusted: ids must pass {@link PlatformIds}, names and transcripts are clipped, at most
 * {@link #MAX_MEDIA} media items are read from one message.
 */
final class WeixinMessages {
    static final int MAX_MEDIA = 10;
    private static final int MAX_TEXT = 16_000;

    private WeixinMessages() {
    }

    /** One media item as the message names it; the bytes are still on the CDN, encrypted. */
    record MediaItem(String kind, String param, String hexKey, String aesKey, String name, long declaredSize, String transcript) {
    }

    /**
     * One user message.
     *
     * @param messageId    the server's message id, or null
     * @param fromUser     the sender's user id
     * @param groupId      the group chat's id, or null for a one-to-one chat
     * @param text         the text items joined by newlines; empty when there are none
     * @param contextToken the token to echo on replies, or null
     * @param media        the media items, in order
     * @param skipped      items Herald does not read (unknown types, media beyond {@link #MAX_MEDIA})
     */
    record Inbound(String messageId, String fromUser, String groupId, String text, String contextToken, List<MediaItem> media,
            int skipped) {
        /** The chat replies go to: the group, else the sender. */
        String chatId() {
            return groupId != null ? groupId : fromUser;
        }
    }

    /** Reads one entry of {@code msgs}; null for the bot's own messages and entries without a usable sender. */
    static Inbound inbound(JsonNode m) {
        String from = PlatformIds.of(m.path("from_user_id"));
        if (from == null || m.path("message_type").asInt(1) != 1) {
            return null;
        }
        String group = m.path("group_id").isTextual() && !m.path("group_id").asText().isEmpty() ? PlatformIds.of(m.path("group_id")) : null;
        if (group == null && m.path("group_id").isTextual() && !m.path("group_id").asText().isEmpty()) {
            return null; // a group message whose group cannot be named must not turn into a direct message
        }
        StringBuilder text = new StringBuilder();
        List<MediaItem> media = new ArrayList<>();
        int skipped = 0;
        for (JsonNode item : m.path("item_list")) {
            int type = item.path("type").asInt();
            if (type == 1 && item.path("text_item").path("text").isTextual()) {
                text.append(text.isEmpty() ? "" : "\n").append(item.path("text_item").path("text").asText());
                continue;
            }
            MediaItem mi = media(type, item);
            if (mi == null || media.size() >= MAX_MEDIA) {
                skipped++;
            } else {
                media.add(mi);
            }
        }
        String id = m.hasNonNull("message_id") ? PlatformIds.of(m.get("message_id"))
                : m.hasNonNull("seq") ? PlatformIds.clean("seq" + m.get("seq").asText()) : null;
        String t = text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) : text.toString();
        return new Inbound(id, from, group, t, contextToken(m.path("context_token")), List.copyOf(media), skipped);
    }

    private static MediaItem media(int type, JsonNode item) {
        String field = switch (type) {
            case 2 -> "image_item";
            case 3 -> "voice_item";
            case 4 -> "file_item";
            case 5 -> "video_item";
            default -> null;
        };
        if (field == null || !item.path(field).isObject()) {
            return null;
        }
        JsonNode sub = item.path(field);
        JsonNode media = sub.path("media");
        String param = text(media.path("encrypt_query_param"), 4096);
        String aes = text(media.path("aes_key"), 256);
        String hex = type == 2 ? text(sub.path("aeskey"), 64) : null;
        String kind = switch (type) {
            case 2 -> "image";
            case 3 -> "voice";
            case 4 -> "file";
            default -> "video";
        };
        String name = type == 4 ? text(sub.path("file_name"), 255) : null;
        long size = -1;
        JsonNode declared = type == 4 ? sub.path("len") : type == 5 ? sub.path("video_size") : sub.path("mid_size");
        if (declared.canConvertToLong() || declared.isTextual() && declared.asText().matches("[0-9]{1,15}")) {
            size = type == 4 ? declared.asLong(-1) : -1; // only a file's len is its plaintext size
        }
        String transcript = type == 3 ? text(sub.path("text"), MAX_TEXT) : null;
        return new MediaItem(kind, param, hex, aes, name, size, transcript);
    }

    private static String text(JsonNode n, int max) {
        if (!n.isTextual() || n.asText().isBlank()) {
            return null;
        }
        String s = n.asText();
        return s.length() > max ? s.substring(0, max) : s;
    }

    /** The context token to echo on replies; null when missing or not a plausible token (over 4,096 characters, control characters). */
    private static String contextToken(JsonNode node) {
        String t = node.isTextual() ? node.asText() : "";
        return t.isEmpty() || t.length() > 4_096 || t.chars().anyMatch(c -> c < 0x20 || c == 0x7f) ? null : t;
    }
}
