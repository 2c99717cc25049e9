package dev.herald.platforms.slack;

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
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns an Events API {@code message} event into a {@link MessageEvent}, or into nothing for what Herald
 * ignores.
 *
 * <p>Where a message lands. A DM ({@code channel_type: im}): chat = the DM channel, no thread unless the
 * message is inside one. A channel (public, private or a group DM): the conversation lives in a thread; a
 * message inside a thread has thread = its {@code thread_ts}, and a top-level message has thread = its own
 * {@code ts}, because Herald answers it in a thread under it. Both are chat type {@code thread}, so the
 * top-level message and the replies in its thread share one lane, shared by everyone in the thread.
 *
 * <p>Ignored: edits, deletions and every subtype but {@code file_share} and {@code thread_broadcast}; the
 * bot's own messages; other bots unless allowed; and, when mentions are required, top-level channel
 * messages that do not mention the bot. Slack's {@code ts} is unique only inside a channel, so the message
 * id is {@code <channel>:<ts>}. Slack's client keeps slash commands for itself, so {@code !status} (and the
 * other gateway commands) are read as {@code /status}.
 */
final class SlackMessages {
    private static final Set<String> TAKEN_SUBTYPES = Set.of("file_share", "thread_broadcast");
    private static final Set<String> COMMANDS = dev.herald.core.platform.CommandNames.ALL;
    private static final Pattern BANG = Pattern.compile("^\\s*!([a-z-]+)(?=\\s|$)");

    private final SlackSettings settings;
    private final Clock clock;
    private volatile String selfUserId = "";
    private volatile String selfBotId = "";
    private volatile dev.herald.core.platform.ChannelOverrides overrides = dev.herald.core.platform.ChannelOverrides.NONE;

    SlackMessages(SlackSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    /** The operator's settings for single chats: a channel's require_mention wins over the platform's. */
    void useChannels(dev.herald.core.platform.ChannelOverrides o) {
        this.overrides = java.util.Objects.requireNonNull(o, "overrides");
    }

    void self(String userId, String botId) {
        this.selfUserId = userId == null ? "" : userId;
        this.selfBotId = botId == null ? "" : botId;
    }

    Optional<MessageEvent> normalise(JsonNode event) {
        if (!"message".equals(event.path("type").asText()) || ignoredSubtype(event) || fromIgnoredBot(event)) {
            return Optional.empty();
        }
        String user = PlatformIds.of(event.path("user"));
        String channel = PlatformIds.of(event.path("channel"));
        String ts = PlatformIds.of(event.path("ts"));
        if (user == null || user.equals(selfUserId) || channel == null || ts == null) {
            return Optional.empty();
        }
        String text = event.path("text").asText("");
        List<MessageEvent.MediaRef> media = files(event);
        if (text.isBlank() && media.isEmpty()) {
            return Optional.empty();
        }
        String threadTs = PlatformIds.of(event.path("thread_ts"));
        boolean inThread = threadTs != null && !threadTs.equals(ts);
        SessionSource source;
        if ("im".equals(event.path("channel_type").asText())) {
            source = new SessionSource(SlackAdapter.PLATFORM, channel, ChatType.DM, user, null, inThread ? threadTs : null, null);
        } else {
            if (!inThread && overrides.requireMention(SlackAdapter.PLATFORM, channel, settings.requireMention()) && !mentionsSelf(text)) {
                return Optional.empty();
            }
            source = new SessionSource(SlackAdapter.PLATFORM, channel, ChatType.THREAD, user, null, inThread ? threadTs : ts, null);
        }
        String cleaned = clean(text);
        if (cleaned.isEmpty() && media.isEmpty()) {
            return Optional.empty(); // only the bot's mention: nothing to answer
        }
        return Optional.of(new MessageEvent(EventIds.next(), source, cleaned, channel + ":" + ts, null, media,
                MessageEvent.Origin.USER, clock.instant()));
    }

    private static boolean ignoredSubtype(JsonNode event) {
        String subtype = event.path("subtype").asText("");
        return !subtype.isEmpty() && !TAKEN_SUBTYPES.contains(subtype);
    }

    private boolean fromIgnoredBot(JsonNode event) {
        String botId = event.path("bot_id").asText("");
        if (botId.isEmpty()) {
            return false;
        }
        return botId.equals(selfBotId) || !settings.allowBots();
    }

    private boolean mentionsSelf(String text) {
        return !selfUserId.isEmpty() && text.contains("<@" + selfUserId + ">");
    }

    /** Slack escapes these three in message text; the model reads them plain. */
    static String unescape(String text) {
        return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    }

    /** What Slack requires escaped in text it should show as written. */
    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** The text without the bot's mention, unescaped, with {@code !command} read as {@code /command}. */
    private String clean(String text) {
        String t = selfUserId.isEmpty() ? text : text.replace("<@" + selfUserId + ">", "");
        t = unescape(t).strip();
        Matcher m = BANG.matcher(t);
        if (m.find() && COMMANDS.contains(m.group(1))) {
            t = "/" + t.substring(m.start(1));
        }
        return t;
    }

    private static List<MessageEvent.MediaRef> files(JsonNode event) {
        List<MessageEvent.MediaRef> out = new ArrayList<>();
        for (JsonNode f : event.path("files")) {
            String url = f.path("url_private").asText("");
            if (!url.isEmpty()) {
                out.add(new MessageEvent.MediaRef("file", url, f.path("mimetype").asText(null), f.path("name").asText(null),
                        f.path("size").asLong(-1)));
            }
        }
        return out;
    }
}
