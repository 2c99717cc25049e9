package dev.herald.platforms.qqbot;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.PlatformIds;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Turns a C2C_MESSAGE_CREATE or GROUP_AT_MESSAGE_CREATE dispatch into a {@link MessageEvent}, or into nothing.
 *
 * <p>One-to-one: chat {@code user:<user_openid>}, chat type DM, user = {@code author.user_openid}. Group: chat
 * {@code group:<group_openid>}, chat type GROUP, user = {@code author.member_openid}; QQ delivers only the messages that
 * @-mention the bot, with the mention already removed from {@code content} (a leading space stays and is stripped), so
 * mention gating is QQ's. The platform message id is QQ's {@code id}, the {@code msg_id} a passive reply must carry;
 * {@link #receivedAt} is QQ's {@code timestamp}, from which the reply window counts. Attachments become media references
 * by their URL (QQ's media hosts; fetched through the adapter's host list).
 */
final class QqBotMessages {
    static final String C2C = "C2C_MESSAGE_CREATE";
    static final String GROUP = "GROUP_AT_MESSAGE_CREATE";
    static final String USER_PREFIX = "user:";
    static final String GROUP_PREFIX = "group:";

    private final Clock clock;

    QqBotMessages(Clock clock) {
        this.clock = clock;
    }

    /** The event for dispatch {@code type} with data {@code d}; empty for other types and unusable messages. */
    Optional<MessageEvent> normalise(String type, JsonNode d) {
        boolean group = type.equals(GROUP);
        if (!group && !type.equals(C2C)) {
            return Optional.empty();
        }
        String msgId = msgId(d.path("id"));
        JsonNode author = d.path("author");
        String userId = PlatformIds.clean(author.path(group ? "member_openid" : "user_openid").asText(author.path("id").asText("")));
        if (msgId == null || userId == null) {
            return Optional.empty();
        }
        String chat;
        SessionSource source;
        if (group) {
            String groupId = PlatformIds.clean(d.path("group_openid").asText(d.path("group_id").asText("")));
            if (groupId == null) {
                return Optional.empty();
            }
            chat = GROUP_PREFIX + groupId;
            source = new SessionSource(QqBotAdapter.PLATFORM, chat, ChatType.GROUP, userId, null, null, null);
        } else {
            chat = USER_PREFIX + userId;
            source = new SessionSource(QqBotAdapter.PLATFORM, chat, ChatType.DM, userId, null, null, null);
        }
        String text = d.path("content").isTextual() ? d.path("content").asText().strip() : "";
        List<MessageEvent.MediaRef> media = media(d);
        if (text.isEmpty() && media.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new MessageEvent(EventIds.next(), source, text, msgId, null, media, MessageEvent.Origin.USER,
                receivedAt(d.path("timestamp"))));
    }

    /**
     * QQ's message id when it looks like one, else null. QQ's ids ({@code ROBOT1.0_YVzTU7...a9q..Ei-356O9DOFQyISCg!!}) have
     * {@code ..} and {@code !}, which the common {@link PlatformIds} rule refuses; they are used only as the {@code msg_id}
     * of a reply (a JSON value) and as the dedupe key, so printable ASCII without spaces, quotes or backslashes is taken.
     */
    static String msgId(JsonNode node) {
        String id = node.isTextual() ? node.asText() : "";
        return MSG_ID.matcher(id).matches() ? id : null;
    }

    private static final java.util.regex.Pattern MSG_ID = java.util.regex.Pattern.compile("[A-Za-z0-9_.:@+=!~*/-]{1,256}");

    /** QQ's {@code timestamp} (ISO-8601 with offset, e.g. {@code 2025-02-15T16:32:42+08:00}), else now; never in the future. */
    Instant receivedAt(JsonNode timestamp) {
        Instant now = clock.instant();
        if (timestamp.isTextual()) {
            try {
                Instant at = OffsetDateTime.parse(timestamp.asText()).toInstant();
                return at.isAfter(now) ? now : at;
            } catch (DateTimeParseException e) {
                return now;
            }
        }
        return now;
    }

    private static List<MessageEvent.MediaRef> media(JsonNode d) {
        List<MessageEvent.MediaRef> out = new ArrayList<>();
        for (JsonNode a : d.path("attachments")) {
            String url = a.path("url").asText("").strip();
            if (url.isEmpty()) {
                continue;
            }
            if (!url.contains("://")) {
                url = "https://" + url; // QQ sometimes leaves out the scheme
            }
            String type = a.path("content_type").asText(null);
            out.add(new MessageEvent.MediaRef(type != null && type.startsWith("image/") ? "image" : "attachment", url, type,
                    a.path("filename").asText(null), a.path("size").asLong(-1)));
        }
        return out;
    }
}
