package dev.herald.platforms.discord;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.PlatformIds;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a MESSAGE_CREATE dispatch into a {@link MessageEvent}, or into nothing for what Herald ignores.
 *
 * <p>Where a message lands: no guild id, a DM (chat = the DM channel); a thread, chat type {@code thread}
 * with chat = the thread's parent channel and thread = the thread's id (one lane shared by everyone in the
 * thread); any other guild channel, chat type {@code group} with chat = the channel (one lane per user by
 * the core's key rules). Ignored: the bot's own messages, other bots and webhooks unless allowed, system
 * messages (joins, pins, thread starters), and, when mentions are required, channel messages that do not
 * mention the bot. Discord's snowflake ids are unique across the platform, so the message id is used as is.
 */
final class DiscordMessages {
    private static final Logger log = LoggerFactory.getLogger(DiscordMessages.class);
    /** DEFAULT and REPLY; every other message type is a system message. */
    private static final java.util.Set<Integer> USER_TYPES = java.util.Set.of(0, 19);

    private final DiscordSettings settings;
    private final ChannelDirectory channels;
    private final Clock clock;
    private volatile String selfId = "";
    private volatile Pattern selfMention = Pattern.compile("(?!)");
    private volatile boolean warnedEmpty;
    private volatile dev.herald.core.platform.ChannelOverrides overrides = dev.herald.core.platform.ChannelOverrides.NONE;

    DiscordMessages(DiscordSettings settings, ChannelDirectory channels, Clock clock) {
        this.settings = settings;
        this.channels = channels;
        this.clock = clock;
    }

    /** The operator's settings for single chats: a channel's require_mention wins over the platform's. */
    void useChannels(dev.herald.core.platform.ChannelOverrides o) {
        this.overrides = java.util.Objects.requireNonNull(o, "overrides");
    }

    /** Who the bot is (from READY): its own messages are ignored, its mentions removed from the text. */
    void self(String id) {
        this.selfId = id;
        this.selfMention = Pattern.compile("<@!?" + Pattern.quote(id) + ">");
    }

    Optional<MessageEvent> normalise(JsonNode d) {
        JsonNode author = d.path("author");
        String userId = PlatformIds.of(author.path("id"));
        if (userId == null || userId.equals(selfId) || !USER_TYPES.contains(d.path("type").asInt(0))) {
            return Optional.empty();
        }
        if ((author.path("bot").asBoolean(false) || d.hasNonNull("webhook_id")) && !settings.allowBots()) {
            return Optional.empty();
        }
        String channelId = PlatformIds.of(d.path("channel_id"));
        if (channelId == null) {
            return Optional.empty();
        }
        String content = d.path("content").asText("");
        List<MessageEvent.MediaRef> media = media(d);
        if (content.isBlank() && media.isEmpty()) {
            warnEmptyOnce(d);
            return Optional.empty();
        }
        String userName = author.hasNonNull("global_name") ? author.get("global_name").asText() : author.path("username").asText(null);
        SessionSource source;
        if (!d.hasNonNull("guild_id")) {
            source = new SessionSource(DiscordAdapter.PLATFORM, channelId, ChatType.DM, userId, userName, null, null);
        } else {
            ChannelDirectory.Channel channel = channels.get(channelId);
            if (channel.isThread() && PlatformIds.clean(channel.parentId()) != null) {
                source = new SessionSource(DiscordAdapter.PLATFORM, channel.parentId(), ChatType.THREAD, userId, userName, channelId,
                        channel.name());
            } else {
                if (overrides.requireMention(DiscordAdapter.PLATFORM, channelId, settings.requireMention()) && !mentionsSelf(d, content)) {
                    return Optional.empty();
                }
                source = new SessionSource(DiscordAdapter.PLATFORM, channelId, ChatType.GROUP, userId, userName, null, channel.name());
            }
        }
        String text = selfMention.matcher(content).replaceAll("").strip();
        if (text.isEmpty() && media.isEmpty()) {
            return Optional.empty(); // only the bot's mention: nothing to answer
        }
        String replyTo = PlatformIds.of(d.path("message_reference").path("message_id"));
        return Optional.of(new MessageEvent(EventIds.next(), source, text, PlatformIds.of(d.path("id")), replyTo, media,
                MessageEvent.Origin.USER, clock.instant()));
    }

    private boolean mentionsSelf(JsonNode d, String content) {
        for (JsonNode m : d.path("mentions")) {
            if (selfId.equals(m.path("id").asText())) {
                return true;
            }
        }
        return selfMention.matcher(content).find();
    }

    private static List<MessageEvent.MediaRef> media(JsonNode d) {
        List<MessageEvent.MediaRef> out = new ArrayList<>();
        for (JsonNode a : d.path("attachments")) {
            String url = a.path("url").asText("");
            if (!url.isEmpty()) {
                out.add(new MessageEvent.MediaRef("attachment", url, a.path("content_type").asText(null), a.path("filename").asText(null),
                        a.path("size").asLong(-1)));
            }
        }
        return out;
    }

    private void warnEmptyOnce(JsonNode d) {
        if (!warnedEmpty && d.hasNonNull("guild_id")) {
            warnedEmpty = true;
            log.warn("discord - a guild message arrived without content (message {}); if this repeats, enable MESSAGE CONTENT INTENT "
                    + "under Bot > Privileged Gateway Intents in the Discord developer portal", d.path("id").asText());
        }
    }
}
