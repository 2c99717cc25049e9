package dev.herald.platforms.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@code /sync} answer into the items Herald acts on, and turns a room's {@code m.room.message} into a
 * {@link MessageEvent} or into nothing.
 *
 * <p>Items, in the answer's order: per joined room its member count from {@code summary}, its membership changes (state
 * and timeline {@code m.room.member}), its timeline's messages and encrypted events; then the invites, with the inviter,
 * whether it is a direct chat ({@code is_direct}) and whether the room is encrypted ({@code m.room.encryption} in the
 * invite state). Whatever is malformed (a field of the wrong type, an id outside {@link MatrixIds}) is left out here,
 * never thrown.
 *
 * <p>Where a message lands: a room of two members (the bot and one person) is a direct chat, one session per room; in a
 * bigger room each user has a session of their own, and only messages that mention the bot count unless
 * {@code require_mention} is off; a message in a thread ({@code m.relates_to.rel_type: m.thread}) belongs to the thread's
 * session (chat = the room, thread = the thread's root event), shared by everyone in it. Ignored: the bot's own events,
 * {@code m.notice} (bots talk to bots in notices), edits ({@code m.replace}), and a body over {@link #MAX_BODY} characters
 * (logged). The message id is the event id, unique on the homeserver, which the store's dedupe keys on.
 */
final class MatrixEvents {
    private static final Logger log = LoggerFactory.getLogger(MatrixEvents.class);
    /** Longer bodies are refused: a homeserver's events are at most 64 KiB, so a longer one is not a message a person typed. */
    static final int MAX_BODY = 32_000;
    private static final Map<String, String> MEDIA = Map.of("m.image", "image", "m.file", "file", "m.audio", "audio", "m.video", "video");

    /** What one sync answer holds for Herald. */
    record Sync(String nextBatch, List<Item> items) {
    }

    sealed interface Item {
        String room();
    }

    /** The homeserver's count of joined members ({@code summary.m.joined_member_count}). */
    record Members(String room, int joined) implements Item {
    }

    /** Someone's membership in {@code room} changed: the member count must be read again. */
    record MembershipChanged(String room, String user, String membership) implements Item {
    }

    /** A timeline event: {@code m.room.message} or {@code m.room.encrypted}. */
    record RoomEvent(String room, String type, String eventId, String sender, JsonNode event) implements Item {
    }

    /** The bot was invited to {@code room} by {@code inviter}. */
    record Invite(String room, String inviter, boolean direct, boolean encrypted) implements Item {
    }

    private final String self;
    private final boolean requireMention;
    private final Clock clock;
    private volatile String displayName;
    private volatile Pattern nameMention;
    private volatile dev.herald.core.platform.ChannelOverrides overrides = dev.herald.core.platform.ChannelOverrides.NONE;

    /** The operator's settings for single chats: a channel's require_mention wins over the platform's. */
    void useChannels(dev.herald.core.platform.ChannelOverrides o) {
        this.overrides = java.util.Objects.requireNonNull(o, "overrides");
    }

    MatrixEvents(String self, boolean requireMention, Clock clock) {
        this.self = self;
        this.requireMention = requireMention;
        this.clock = clock;
        displayName(null);
    }

    /** The bot's display name, which mentions may use instead of its user id; null = its user id's local part. */
    void displayName(String name) {
        String n = name == null || name.isBlank() ? self.substring(1, Math.max(1, self.indexOf(':'))) : name.strip();
        this.displayName = n;
        this.nameMention = Pattern.compile("(?<![\\p{L}\\p{N}])" + Pattern.quote(n) + "(?![\\p{L}\\p{N}])", Pattern.CASE_INSENSITIVE
                | Pattern.UNICODE_CASE);
    }

    /** The answer's next_batch (null when there is none: not a sync answer) and its items. */
    static Sync parse(JsonNode body, String self) {
        String next = body.path("next_batch").isTextual() && !body.path("next_batch").asText().isEmpty()
                && body.path("next_batch").asText().length() <= 4096 ? body.path("next_batch").asText() : null;
        List<Item> items = new ArrayList<>();
        JsonNode rooms = body.path("rooms");
        for (var entry : rooms.path("join").properties()) {
            String room = MatrixIds.room(entry.getKey());
            JsonNode r = entry.getValue();
            if (room == null || !r.isObject()) {
                continue;
            }
            JsonNode joined = r.path("summary").path("m.joined_member_count");
            if (joined.isIntegralNumber() && joined.asInt() > 0) {
                items.add(new Members(room, joined.asInt()));
            }
            for (JsonNode ev : r.path("state").path("events")) {
                member(room, ev, items);
            }
            for (JsonNode ev : r.path("timeline").path("events")) {
                if (!ev.isObject()) {
                    continue;
                }
                String type = ev.path("type").asText("");
                if (type.equals("m.room.member")) {
                    member(room, ev, items);
                } else if (type.equals("m.room.message") || type.equals("m.room.encrypted")) {
                    String id = MatrixIds.event(ev.path("event_id"));
                    String sender = MatrixIds.user(ev.path("sender"));
                    if (id != null && sender != null && !sender.equals(self)) {
                        items.add(new RoomEvent(room, type, id, sender, ev));
                    }
                }
            }
        }
        for (var entry : rooms.path("invite").properties()) {
            String room = MatrixIds.room(entry.getKey());
            if (room == null) {
                continue;
            }
            String inviter = null;
            boolean direct = false;
            boolean encrypted = false;
            for (JsonNode ev : entry.getValue().path("invite_state").path("events")) {
                String type = ev.path("type").asText("");
                if (type.equals("m.room.encryption")) {
                    encrypted = true;
                } else if (type.equals("m.room.member") && self.equals(ev.path("state_key").asText())
                        && "invite".equals(ev.path("content").path("membership").asText())) {
                    inviter = MatrixIds.user(ev.path("sender"));
                    direct = ev.path("content").path("is_direct").asBoolean(false);
                }
            }
            if (inviter != null) {
                items.add(new Invite(room, inviter, direct, encrypted));
            }
        }
        return new Sync(next, items);
    }

    private static void member(String room, JsonNode ev, List<Item> items) {
        if (!"m.room.member".equals(ev.path("type").asText())) {
            return;
        }
        String user = MatrixIds.user(ev.path("state_key"));
        String membership = ev.path("content").path("membership").asText("");
        if (user != null && !membership.isEmpty()) {
            items.add(new MembershipChanged(room, user, membership));
        }
    }

    /**
     * The gateway's event for {@code e} (an {@code m.room.message}) in a room that is a direct chat or not, or empty when
     * it carries nothing Herald answers.
     */
    Optional<MessageEvent> message(RoomEvent e, boolean direct) {
        JsonNode content = e.event().path("content");
        String msgtype = content.path("msgtype").asText("");
        JsonNode relates = content.path("m.relates_to");
        if (msgtype.equals("m.notice") || "m.replace".equals(relates.path("rel_type").asText()) || content.has("m.new_content")) {
            return Optional.empty();
        }
        if (!content.path("body").isTextual()) {
            log.info("matrix - event {} in room {} has no text body (body is {}); skipped", e.eventId(), e.room(),
                    content.path("body").getNodeType().name().toLowerCase(Locale.ROOT));
            return Optional.empty();
        }
        String body = content.path("body").asText();
        if (body.length() > MAX_BODY) {
            log.warn("matrix - event {} in room {} from {} has a body of {} characters, over the {}-character limit; skipped", e.eventId(),
                    e.room(), e.sender(), body.length(), MAX_BODY);
            return Optional.empty();
        }
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        String text;
        if (MEDIA.containsKey(msgtype)) {
            String url = content.path("url").asText("");
            if (MatrixIds.mxc(url) == null) {
                log.info("matrix - {} event {} in room {} has no plain mxc:// url (an encrypted file?); skipped", msgtype, e.eventId(), e.room());
                return Optional.empty();
            }
            JsonNode info = content.path("info");
            String fileName = content.path("filename").isTextual() ? content.path("filename").asText() : body;
            media.add(new MessageEvent.MediaRef(MEDIA.get(msgtype), url, info.path("mimetype").isTextual() ? info.path("mimetype").asText() : null,
                    fileName, info.path("size").canConvertToLong() ? info.path("size").asLong() : -1));
            text = content.path("filename").isTextual() && !body.equals(fileName) ? body : ""; // body is a caption only beside a filename
        } else if (msgtype.equals("m.text") || msgtype.equals("m.emote")) {
            text = relates.has("m.in_reply_to") ? withoutReplyFallback(body) : body;
        } else {
            return Optional.empty();
        }
        String thread = "m.thread".equals(relates.path("rel_type").asText()) ? MatrixIds.event(relates.path("event_id")) : null;
        boolean mentioned = mentions(content, body);
        if (!direct && overrides.requireMention(MatrixAdapter.PLATFORM, e.room(), requireMention) && !mentioned) {
            return Optional.empty();
        }
        String cleaned = mentioned ? withoutMention(text) : text.strip();
        if (cleaned.isEmpty() && media.isEmpty()) {
            return Optional.empty(); // only the bot's name: nothing to answer
        }
        SessionSource source = direct ? new SessionSource(MatrixAdapter.PLATFORM, e.room(), ChatType.DM, e.sender(), null, thread, null)
                : thread != null ? new SessionSource(MatrixAdapter.PLATFORM, e.room(), ChatType.THREAD, e.sender(), null, thread, null)
                : new SessionSource(MatrixAdapter.PLATFORM, e.room(), ChatType.GROUP, e.sender(), null, null, null);
        return Optional.of(new MessageEvent(EventIds.next(), source, cleaned, e.eventId(), null, media, MessageEvent.Origin.USER,
                clock.instant()));
    }

    /** Whether the message names the bot: in {@code m.mentions}, by user id (also in a matrix.to link) or by display name. */
    boolean mentions(JsonNode content, String body) {
        for (JsonNode u : content.path("m.mentions").path("user_ids")) {
            if (self.equals(u.asText())) {
                return true;
            }
        }
        String formatted = content.path("formatted_body").isTextual() ? content.path("formatted_body").asText() : "";
        return body.contains(self) || formatted.contains(self) || formatted.contains(URLEncoder.encode(self, StandardCharsets.UTF_8))
                || nameMention.matcher(body).find();
    }

    /** The text without the bot's user id and without its display name at the start ("Herald: ..."). */
    private String withoutMention(String text) {
        String t = text.replace(self, "").strip();
        Matcher m = nameMention.matcher(t);
        if (m.lookingAt()) {
            t = t.substring(m.end());
        }
        return t.replaceFirst("^[\\s:,]+", "").strip();
    }

    /** A reply's body without the quoted lines ({@code > ...}) clients put in front of it, and the blank line after them. */
    static String withoutReplyFallback(String body) {
        if (!body.startsWith(">")) {
            return body;
        }
        String[] lines = body.split("\n", -1);
        int i = 0;
        while (i < lines.length && lines[i].startsWith(">")) {
            i++;
        }
        while (i < lines.length && lines[i].isBlank()) {
            i++;
        }
        return String.join("\n", java.util.Arrays.copyOfRange(lines, i, lines.length));
    }

    String displayName() {
        return displayName;
    }
}
