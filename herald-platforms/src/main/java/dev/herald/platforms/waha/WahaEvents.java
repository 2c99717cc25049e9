package dev.herald.platforms.waha;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.JsonHttp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads one WAHA webhook body (already verified by its HMAC) into what Herald acts on. WAHA's envelope is
 * {@code {id, timestamp (ms), event, session, me{id, lid}, payload, engine}}; Herald reads:
 * <ul>
 *   <li>{@code message} and {@code message.any}: {@code payload} is a message ({@code id}, {@code from} the chat,
 *   {@code participant} the sender in a group, {@code fromMe}, {@code body}, {@code hasMedia}, {@code media{url,
 *   mimetype, filename}}, {@code replyTo}, mentions in {@code mentionedIds} or the engine's {@code _data}). Herald's own
 *   messages ({@code fromMe}), status updates ({@code status@broadcast}), broadcast lists and channels are left out;
 *   in a group, with {@code require_mention}, so is a message that neither @mentions the number nor answers it.</li>
 *   <li>{@code session.status}: {@code payload.status}, the session's new status.</li>
 * </ul>
 * Events of another session and of other kinds are named in {@link Parsed#skipped()}. Nothing here throws but for a body
 * that is not JSON.
 */
final class WahaEvents {
    /** A message id as WAHA writes it ({@code false_4915...@c.us_3EB0...}): the store's dedupe key. */
    private static final Pattern MESSAGE_ID = Pattern.compile("[A-Za-z0-9_.:@=+/-]{1,256}");
    /** A WhatsApp id: a person ({@code @c.us}, {@code @s.whatsapp.net}, {@code @lid}) or a group ({@code @g.us}). */
    private static final Pattern JID = Pattern.compile("[A-Za-z0-9._:-]{1,64}@(c\\.us|s\\.whatsapp\\.net|lid|g\\.us)");
    private static final int MAX_TEXT = 65_536;
    static final Set<String> MESSAGE_EVENTS = Set.of("message", "message.any");

    /** The number the session is logged in as, in both its forms (either may be null). */
    record Me(String id, String lid) {
        static final Me UNKNOWN = new Me(null, null);

        boolean known() {
            return id != null || lid != null;
        }
    }

    /** A message someone sent: the event, the chat it came from, and the sender within a group (null in a direct chat). */
    record Incoming(MessageEvent event, String chatId, String participant) {
    }

    /**
     * What one call carried.
     *
     * @param eventId   WAHA's event id, or null
     * @param sentAt    the envelope's timestamp, or null when it has none
     * @param status    a {@code session.status} event's status, or null
     * @param me        the number the envelope names as the session's own ({@link Me#UNKNOWN} when it names none)
     */
    record Parsed(String eventId, Instant sentAt, List<Incoming> messages, String status, Me me, List<String> skipped) {
    }

    private final Platform platform;
    private final String session;
    private final boolean requireMention;

    WahaEvents(Platform platform, String session, boolean requireMention) {
        this.platform = platform;
        this.session = session;
        this.requireMention = requireMention;
    }

    /**
     * Reads {@code body}.
     *
     * @param now   when the call arrived (the events' {@code receivedAt})
     * @param known the session's own number as the status poll learned it, used when the envelope names none
     * @throws java.io.IOException when the body is not JSON
     */
    Parsed parse(byte[] body, Instant now, Me known) throws java.io.IOException {
        JsonNode root = JsonHttp.JSON.readTree(body);
        List<Incoming> messages = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        if (root == null || !root.isObject()) {
            skipped.add("a body that is not a JSON object");
            return new Parsed(null, null, messages, null, Me.UNKNOWN, skipped);
        }
        String eventId = root.path("id").isTextual() ? WahaApi.clip(root.path("id").asText(), 128) : null;
        Instant sentAt = root.path("timestamp").canConvertToLong() && root.path("timestamp").isIntegralNumber()
                ? Instant.ofEpochMilli(root.path("timestamp").asLong()) : null;
        Me me = new Me(jid(root.path("me").path("id")), jid(root.path("me").path("lid")));
        Me self = me.known() ? me : known;
        String event = root.path("event").asText("");
        String forSession = root.path("session").asText("");
        if (!forSession.equals(session)) {
            skipped.add("an event of session " + shortText(root.path("session")) + ", not the configured " + session);
            return new Parsed(eventId, sentAt, messages, null, me, skipped);
        }
        JsonNode payload = root.path("payload");
        String status = null;
        if (MESSAGE_EVENTS.contains(event)) {
            message(payload, self, now, messages, skipped);
        } else if (event.equals("session.status")) {
            if (payload.path("status").isTextual() && payload.path("status").asText().matches("[A-Z_]{1,40}")) {
                status = payload.path("status").asText();
            } else {
                skipped.add("a session.status event without a usable status");
            }
        } else {
            skipped.add("an event " + shortText(root.path("event")) + ", which Herald does not read");
        }
        return new Parsed(eventId, sentAt, messages, status, me, skipped);
    }

    private void message(JsonNode m, Me me, Instant now, List<Incoming> out, List<String> skipped) {
        String id = m.path("id").isTextual() && MESSAGE_ID.matcher(m.path("id").asText()).matches() && !m.path("id").asText().contains("..")
                ? m.path("id").asText() : null;
        if (id == null) {
            skipped.add("a message without a usable id");
            return;
        }
        if (m.path("fromMe").asBoolean(false)) {
            skipped.add("message " + id + ", sent from the number itself");
            return;
        }
        String fromText = m.path("from").asText("");
        if (fromText.endsWith("@broadcast") || fromText.endsWith("@newsletter")) {
            skipped.add("message " + id + " in " + (fromText.equals("status@broadcast") ? "the status updates" : "a broadcast or channel"));
            return;
        }
        String chat = jid(m.path("from"));
        if (chat == null) {
            skipped.add("message " + id + " from no usable chat");
            return;
        }
        boolean group = chat.endsWith("@g.us");
        String sender = group ? firstJid(m.path("participant"), m.path("author")) : chat;
        if (sender == null || sender.endsWith("@g.us")) {
            skipped.add("group message " + id + " without a usable participant");
            return;
        }
        String text = m.path("body").isTextual() ? m.path("body").asText() : "";
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        JsonNode file = m.path("media");
        if (m.path("hasMedia").asBoolean(false)) {
            if (file.path("url").isTextual() && !file.path("url").asText().isBlank() && file.path("url").asText().length() <= 2048) {
                String mime = file.path("mimetype").isTextual() ? WahaApi.clip(file.path("mimetype").asText(), 128) : null;
                String name = file.path("filename").isTextual() ? WahaApi.clip(file.path("filename").asText(), 255) : null;
                media.add(new MessageEvent.MediaRef(kind(mime), file.path("url").asText(), mime, name, -1));
            } else {
                skipped.add("the file of message " + id + ", which WAHA did not download (" + (file.path("error").isMissingNode()
                        || file.path("error").isNull() ? "no media.url; is media download on in WAHA?" : "media.error set") + ")");
            }
        }
        JsonNode location = m.path("location");
        if (text.isBlank() && location.isObject() && location.hasNonNull("latitude") && location.hasNonNull("longitude")) {
            text = "[location: " + WahaApi.clip(location.path("latitude").asText(), 32) + ", " + WahaApi.clip(location.path("longitude").asText(), 32)
                    + (location.path("description").isTextual() ? " " + WahaApi.clip(location.path("description").asText(), 200) : "") + "]";
        }
        if (group && requireMention && !mentioned(m, text, me)) {
            skipped.add("group message " + id + ", which does not mention the number (require_mention)");
            return;
        }
        if (group) {
            text = withoutMention(text, me);
        }
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        if (text.isBlank() && media.isEmpty()) {
            skipped.add("message " + id + " with nothing Herald reads in it");
            return;
        }
        String replyTo = m.path("replyTo").path("id").isTextual() && MESSAGE_ID.matcher(m.path("replyTo").path("id").asText()).matches()
                ? m.path("replyTo").path("id").asText() : null;
        JsonNode data = m.path("_data");
        String name = firstText(data.path("notifyName"), data.path("pushName"), data.path("Info").path("PushName"));
        String userId = WahaSettings.userId(sender);
        SessionSource source = group ? new SessionSource(platform, chat, ChatType.GROUP, userId, name, null, null)
                : new SessionSource(platform, chat, ChatType.DM, userId, name, null, null);
        MessageEvent event = new MessageEvent(EventIds.next(), source, text, id, replyTo, media, MessageEvent.Origin.USER, now);
        out.add(new Incoming(event, chat, group ? sender : null));
    }

    /** Whether a group message is for the number: its id among the mentions, an {@code @<number>} in the text, or an answer to its message. */
    static boolean mentioned(JsonNode m, String text, Me me) {
        if (!me.known()) {
            return false;
        }
        List<JsonNode> lists = List.of(m.path("mentionedIds"), m.path("_data").path("mentionedJidList"),
                m.path("_data").path("message").path("extendedTextMessage").path("contextInfo").path("mentionedJid"));
        for (JsonNode list : lists) {
            for (JsonNode j : list) {
                String s = j.isTextual() ? j.asText() : j.path("_serialized").asText("");
                if (same(s, me.id()) || same(s, me.lid())) {
                    return true;
                }
            }
        }
        for (String own : new String[] {me.id(), me.lid()}) {
            if (own != null && Pattern.compile("@" + Pattern.quote(user(own)) + "(?![0-9])").matcher(text).find()) {
                return true;
            }
        }
        String answered = m.path("replyTo").path("participant").asText("");
        return same(answered, me.id()) || same(answered, me.lid());
    }

    private static String withoutMention(String text, Me me) {
        String out = text;
        for (String own : new String[] {me.id(), me.lid()}) {
            if (own != null) {
                out = out.replaceAll("@" + Pattern.quote(user(own)) + "(?![0-9])\\s*", "");
            }
        }
        return out.strip();
    }

    private static boolean same(String a, String own) {
        return own != null && !a.isEmpty() && normal(a).equals(normal(own));
    }

    /** The part before {@code @} (and before a device suffix {@code :12}). */
    private static String user(String jid) {
        String u = jid.contains("@") ? jid.substring(0, jid.indexOf('@')) : jid;
        return u.contains(":") ? u.substring(0, u.indexOf(':')) : u;
    }

    private static String normal(String jid) {
        String domain = jid.contains("@") ? jid.substring(jid.indexOf('@')) : "";
        return user(jid) + (domain.equals("@s.whatsapp.net") ? "@c.us" : domain);
    }

    /** A usable WhatsApp id, with {@code @s.whatsapp.net} written as {@code @c.us} (as WAHA's API expects), else null. */
    static String jid(JsonNode n) {
        return n == null || !n.isTextual() ? null : jid(n.asText());
    }

    static String jid(String s) {
        return s == null || !JID.matcher(s).matches() || s.contains("..") ? null : normal(s);
    }

    private static String firstJid(JsonNode... nodes) {
        for (JsonNode n : nodes) {
            String j = jid(n);
            if (j != null) {
                return j;
            }
        }
        return null;
    }

    private static String firstText(JsonNode... nodes) {
        for (JsonNode n : nodes) {
            if (n.isTextual() && !n.asText().isBlank()) {
                return WahaApi.clip(n.asText().strip(), 128);
            }
        }
        return null;
    }

    /** How Herald names a file of {@code mime}: photo, voice, video or document. */
    static String kind(String mime) {
        String m = mime == null ? "" : mime.toLowerCase(Locale.ROOT);
        if (m.startsWith("image/")) {
            return "photo";
        }
        if (m.startsWith("audio/")) {
            return "voice";
        }
        if (m.startsWith("video/")) {
            return "video";
        }
        return "document";
    }

    private static String shortText(JsonNode n) {
        return n == null || n.isMissingNode() || n.isNull() ? "none" : "\"" + WahaApi.clip(n.asText(), 80) + "\"";
    }
}
