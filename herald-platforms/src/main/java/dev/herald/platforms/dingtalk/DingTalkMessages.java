package dev.herald.platforms.dingtalk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.PlatformIds;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Turns a robot message ({@code data} of a CALLBACK frame on {@value DingTalkApi#BOT_TOPIC}) into a {@link MessageEvent}
 * and the message's session webhook, or into nothing for what Herald ignores.
 *
 * <p>Where a message lands: a single chat ({@code conversationType} 1) is the sender's chat, its id the sender's staff
 * id, because the send API addresses users by staff id; a group ({@code conversationType} 2) is its
 * {@code conversationId} (the openConversationId, which starts with {@code cid}; see {@link #id} for its {@code /}),
 * shared by its members. The user is {@code senderStaffId}, or {@code senderId} for someone outside the organisation. The message id is DingTalk's
 * {@code msgId}, by which the gateway drops a redelivery. Ignored: the robot's own messages, and in groups (with
 * require_mention) messages whose {@code isInAtList} is not true. Pictures, files, audio and rich-text pictures
 * become media references by their {@code downloadCode}; audio's {@code recognition} is its text.
 */
final class DingTalkMessages {
    /** A message to hand on, and where its replies can go while the webhook lasts. */
    record Inbound(MessageEvent event, String webhook, Instant webhookUntil) {
    }

    private final DingTalkSettings settings;
    private final Clock clock;

    DingTalkMessages(DingTalkSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    Optional<Inbound> normalise(JsonNode m) {
        String msgId = id(m.path("msgId"));
        String user = id(m.path("senderStaffId"));
        if (user == null) {
            user = id(m.path("senderId"));
        }
        String conversation = id(m.path("conversationId"));
        if (msgId == null || user == null || conversation == null) {
            return Optional.empty();
        }
        String self = m.path("chatbotUserId").asText("");
        if (!self.isEmpty() && self.equals(m.path("senderId").asText(""))) {
            return Optional.empty();
        }
        boolean group = "2".equals(m.path("conversationType").asText(""));
        if (group && settings.requireMention() && !m.path("isInAtList").asBoolean(false)) {
            return Optional.empty();
        }
        String type = m.path("msgtype").asText("text");
        JsonNode content = m.path("content");
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        switch (type) {
            case "text" -> text.append(m.path("text").path("content").asText(""));
            case "picture" -> ref(media, "picture", content.path("downloadCode"), "image/jpeg", null);
            case "audio" -> {
                text.append(content.path("recognition").asText(""));
                ref(media, "audio", content.path("downloadCode"), null, null);
            }
            case "video" -> ref(media, "video", content.path("downloadCode"), "video/mp4", null);
            case "file" -> ref(media, "file", content.path("downloadCode"), null, content.path("fileName").asText(null));
            case "richText" -> {
                for (JsonNode part : content.path("richText")) {
                    if (part.path("text").isTextual()) {
                        text.append(part.path("text").asText());
                    } else if (part.has("downloadCode") || part.has("pictureDownloadCode")) {
                        JsonNode code = part.has("downloadCode") ? part.path("downloadCode") : part.path("pictureDownloadCode");
                        ref(media, "picture", code, "image/jpeg", null);
                    }
                }
            }
            default -> {
                return Optional.empty();
            }
        }
        String cleaned = text.toString().strip();
        if (cleaned.isEmpty() && media.isEmpty()) {
            return Optional.empty();
        }
        String name = m.path("senderNick").isTextual() ? clip(m.path("senderNick").asText(), 100) : null;
        SessionSource source = group
                ? new SessionSource(DingTalkAdapter.PLATFORM, conversation, ChatType.GROUP, user, name, null,
                        m.path("conversationTitle").isTextual() ? clip(m.path("conversationTitle").asText(), 100) : null)
                : new SessionSource(DingTalkAdapter.PLATFORM, user, ChatType.DM, user, name, null, null);
        MessageEvent e = new MessageEvent(EventIds.next(), source, cleaned, msgId, null, media, MessageEvent.Origin.USER, clock.instant());
        String webhook = m.path("sessionWebhook").isTextual() ? m.path("sessionWebhook").asText() : null;
        long until = m.path("sessionWebhookExpiredTime").asLong(0);
        return Optional.of(new Inbound(e, webhook, until > 0 ? Instant.ofEpochMilli(until) : Instant.EPOCH));
    }

    /**
     * A DingTalk id as Herald keeps it: DingTalk's base64 ids (openConversationId, msgId) may hold {@code /}, which
     * becomes {@code _} (base64 has no {@code _}, so {@link #conversationId} turns it back), and outside senders'
     * {@code senderId} ({@code $:LWCP_v1:$...}) loses its {@code $} signs; then the shared {@link PlatformIds} rule.
     */
    static String id(JsonNode node) {
        if (!node.isTextual()) {
            return PlatformIds.of(node);
        }
        return PlatformIds.clean(node.asText().strip().replace('/', '_').replace("$", ""));
    }

    /** The openConversationId a group's chat id stands for. */
    static String conversationId(String chatId) {
        return chatId.replace('_', '/');
    }

    private static void ref(List<MessageEvent.MediaRef> out, String kind, JsonNode code, String mime, String name) {
        String c = code.isTextual() ? code.asText().strip() : "";
        if (!c.isEmpty() && c.length() <= 4096) {
            out.add(new MessageEvent.MediaRef(kind, c, mime, name, -1));
        }
    }

    static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
