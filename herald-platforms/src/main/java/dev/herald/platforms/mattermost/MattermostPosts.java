package dev.herald.platforms.mattermost;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.PlatformIds;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a Mattermost post (from a {@code posted} event or from catch-up) into a {@link MessageEvent}, or into nothing
 * for what Herald ignores.
 *
 * <p>Where a post lands. A direct message (channel type {@code D}): chat = the DM channel, one session per DM; a post in
 * a thread of the DM (it has a {@code root_id}) is a session of its own and is answered in that thread. A channel
 * ({@code O}, {@code P}) or a group message ({@code G}): a top-level post is one session per user in the channel, answered
 * at the top level; a post in a thread is chat type {@code thread}, one session shared by the thread, answered in it.
 * With {@code require_mention} (the default) a channel post starts a turn only when it @mentions the bot's username,
 * threads included; the mention is taken out of the text.
 *
 * <p>Ignored: system posts ({@code type} not empty), the bot's own posts, posts of other bots and webhooks (no loops),
 * deleted posts, channels outside {@code channels}, and posts of more than {@link #MAX_MESSAGE} characters (a Mattermost
 * server keeps posts to 16,383; a longer one is logged and skipped). The post id is unique on the server, so it is the
 * message id. Mattermost's clients keep slash commands for the server, so {@code !status} (and the other gateway
 * commands) are read as {@code /status}.
 */
final class MattermostPosts {
    private static final Logger log = LoggerFactory.getLogger(MattermostPosts.class);
    /** Longer than any post a Mattermost server stores (16,383 by default, 65,535 bytes at most); longer ones are skipped. */
    static final int MAX_MESSAGE = 65_536;
    private static final int MAX_FILES = 10;
    private static final Set<String> COMMANDS = dev.herald.core.platform.CommandNames.ALL;
    private static final Pattern BANG = Pattern.compile("^\\s*!([a-z-]+)(?=\\s|$)");

    private final MattermostSettings settings;
    private final Clock clock;
    private volatile String selfId = "";
    private volatile Pattern mention = null;
    private volatile dev.herald.core.platform.ChannelOverrides overrides = dev.herald.core.platform.ChannelOverrides.NONE;

    /** The operator's settings for single chats: a channel's require_mention wins over the platform's. */
    void useChannels(dev.herald.core.platform.ChannelOverrides o) {
        this.overrides = java.util.Objects.requireNonNull(o, "overrides");
    }

    MattermostPosts(MattermostSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    /** The bot's user id and username, learnt from {@code /users/me}. */
    void self(String id, String username) {
        this.selfId = id == null ? "" : id;
        this.mention = username == null || username.isBlank() ? null
                : Pattern.compile("(?<![A-Za-z0-9_.@-])@" + Pattern.quote(username.toLowerCase(Locale.ROOT)) + "(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_-])",
                        Pattern.CASE_INSENSITIVE);
    }

    String selfId() {
        return selfId;
    }

    /** Whether the bot answers in this channel: direct and group messages always, other channels as {@code channels} says. */
    boolean answersIn(String channelId, String channelType, String channelName) {
        if ("D".equals(channelType) || "G".equals(channelType) || settings.channels().isEmpty()) {
            return true;
        }
        return settings.channels().stream().map(String::strip).anyMatch(c -> c.equals(channelId) || c.equalsIgnoreCase(channelName));
    }

    /**
     * The event for {@code post} in a channel of {@code channelType} ({@code D}, {@code G}, {@code O}, {@code P}), or empty
     * when Herald ignores it.
     */
    Optional<MessageEvent> normalise(JsonNode post, String channelType, String channelName, String channelDisplayName, String senderName) {
        if (post == null || !post.isObject()) {
            return Optional.empty();
        }
        String id = PlatformIds.of(post.path("id"));
        String channel = PlatformIds.of(post.path("channel_id"));
        String user = PlatformIds.of(post.path("user_id"));
        if (id == null || channel == null || user == null || user.equals(selfId)) {
            return Optional.empty();
        }
        if (!post.path("type").asText("").isEmpty() || post.path("delete_at").asLong(0) != 0 || fromBotOrWebhook(post)) {
            return Optional.empty();
        }
        if (!answersIn(channel, channelType, channelName)) {
            return Optional.empty();
        }
        JsonNode messageNode = post.path("message");
        String text = messageNode.isTextual() ? messageNode.asText() : "";
        if (text.length() > MAX_MESSAGE) {
            log.warn("mattermost - post {} in channel {} has a {}-character message, over the {} a Mattermost post can hold; skipped",
                    id, channel, text.length(), MAX_MESSAGE);
            return Optional.empty();
        }
        List<MessageEvent.MediaRef> media = files(post);
        if (text.isBlank() && media.isEmpty()) {
            return Optional.empty();
        }
        String root = PlatformIds.of(post.path("root_id"));
        SessionSource source;
        String sender = senderName == null || senderName.isBlank() ? null : senderName.startsWith("@") ? senderName.substring(1) : senderName;
        String chatName = channelDisplayName == null || channelDisplayName.isBlank() ? null : channelDisplayName;
        if ("D".equals(channelType)) {
            source = new SessionSource(MattermostAdapter.PLATFORM, channel, ChatType.DM, user, sender, root, null);
        } else {
            if (overrides.requireMention(MattermostAdapter.PLATFORM, channel, settings.requireMention()) && !mentionsSelf(text)) {
                return Optional.empty();
            }
            source = root != null
                    ? new SessionSource(MattermostAdapter.PLATFORM, channel, ChatType.THREAD, user, sender, root, chatName)
                    : new SessionSource(MattermostAdapter.PLATFORM, channel, ChatType.GROUP, user, sender, null, chatName);
        }
        String cleaned = clean(text);
        if (cleaned.isEmpty() && media.isEmpty()) {
            return Optional.empty(); // only the bot's mention: nothing to answer
        }
        return Optional.of(new MessageEvent(EventIds.next(), source, cleaned, id, null, media, MessageEvent.Origin.USER, clock.instant()));
    }

    private static boolean fromBotOrWebhook(JsonNode post) {
        JsonNode props = post.path("props");
        return "true".equals(props.path("from_bot").asText("")) || "true".equals(props.path("from_webhook").asText(""));
    }

    private boolean mentionsSelf(String text) {
        Pattern p = mention;
        return p != null && p.matcher(text).find();
    }

    /** The text without the bot's mention, with {@code !command} read as {@code /command}. */
    private String clean(String text) {
        Pattern p = mention;
        String t = (p == null ? text : p.matcher(text).replaceAll("")).strip();
        if (p != null && p.matcher(text).find()) {
            t = t.replaceFirst("^[,:;]\\s*", ""); // "@herald, do this" asks "do this"
        }
        Matcher m = BANG.matcher(t);
        if (m.find() && COMMANDS.contains(m.group(1))) {
            t = "/" + t.substring(m.start(1));
        }
        return t;
    }

    /** The post's files: {@code metadata.files} (id, name, type, size) where given, else bare {@code file_ids}. */
    private static List<MessageEvent.MediaRef> files(JsonNode post) {
        List<MessageEvent.MediaRef> out = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (JsonNode f : post.path("metadata").path("files")) {
            String id = PlatformIds.of(f.path("id"));
            if (id != null && seen.add(id) && out.size() < MAX_FILES) {
                String mime = f.path("mime_type").isTextual() ? f.path("mime_type").asText() : null;
                out.add(new MessageEvent.MediaRef(mime != null && mime.startsWith("image/") ? "image" : "file", id, mime,
                        f.path("name").isTextual() ? f.path("name").asText() : null, f.path("size").asLong(-1)));
            }
        }
        for (JsonNode f : post.path("file_ids")) {
            String id = PlatformIds.of(f);
            if (id != null && seen.add(id) && out.size() < MAX_FILES) {
                out.add(new MessageEvent.MediaRef("file", id, null));
            }
        }
        return out;
    }
}
