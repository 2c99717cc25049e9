package dev.herald.platforms.bluebubbles;

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
import java.util.regex.Pattern;

/**
 * Reads one BlueBubbles webhook body (its URL secret already checked) into what Herald acts on. The body is
 * {@code {type, data}}; Herald reads {@code new-message}, whose {@code data} is a message: {@code guid} (the store's
 * dedupe key), {@code text}, {@code isFromMe}, {@code handle.address} (the sender), {@code chats[0]} ({@code guid},
 * {@code style} 43 for a group and 45 for a 1:1 chat, {@code displayName}), {@code attachments[]} ({@code guid},
 * {@code mimeType}, {@code transferName}, {@code totalBytes}), {@code dateCreated} (ms) and
 * {@code associatedMessageGuid} (set on a tapback, which is not a message). Left out, each named in
 * {@link Parsed#skipped()}: the Mac's own messages ({@code isFromMe}: Herald's sends come back as webhooks too),
 * tapbacks and group events, other event types ({@code updated-message}, {@code typing-indicator}, ...), and in a group
 * with {@code require_mention} a message that names none of {@code mention_names}. Nothing here throws but for a body
 * that is not JSON.
 */
final class BlueBubblesEvents {
    private static final Pattern ADDRESS = Pattern.compile("\\+?[0-9]{3,20}|[^\\s@]{1,64}@[^\\s@]{1,190}");
    private static final int MAX_TEXT = 65_536;
    static final int GROUP_STYLE = 43;
    static final int DIRECT_STYLE = 45;

    /** A message someone sent: the event and the chat guid it came from. */
    record Incoming(MessageEvent event, String chatGuid, boolean group) {
    }

    /** What one call carried: its event type, the messages to hand on and what was left out. */
    record Parsed(String type, List<Incoming> messages, List<String> skipped) {
    }

    private final Platform platform;
    private final boolean requireMention;
    private final List<Pattern> mentions;

    BlueBubblesEvents(Platform platform, boolean requireMention, List<String> mentionNames) {
        this.platform = platform;
        this.requireMention = requireMention;
        this.mentions = mentionNames.stream()
                .map(n -> Pattern.compile("(?<![\\p{L}\\p{N}_])@?" + Pattern.quote(n) + "(?![\\p{L}\\p{N}_])[,:]?",
                        Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE))
                .toList();
    }

    /**
     * Reads {@code body}.
     *
     * @param now when the call arrived (the events' {@code receivedAt})
     * @throws java.io.IOException when the body is not JSON
     */
    Parsed parse(byte[] body, Instant now) throws java.io.IOException {
        JsonNode root = JsonHttp.JSON.readTree(body);
        List<Incoming> messages = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        if (root == null || !root.isObject()) {
            skipped.add("a body that is not a JSON object");
            return new Parsed(null, messages, skipped);
        }
        String type = root.path("type").isTextual() ? BlueBubblesApi.clip(root.path("type").asText(), 60) : null;
        if (!"new-message".equals(type)) {
            skipped.add("an event " + (type == null ? "without a type" : "\"" + type + "\"") + ", which Herald does not act on");
            return new Parsed(type, messages, skipped);
        }
        message(root.path("data"), now, messages, skipped);
        return new Parsed(type, messages, skipped);
    }

    private void message(JsonNode m, Instant now, List<Incoming> out, List<String> skipped) {
        String guid = m.path("guid").isTextual() && BlueBubblesApi.GUID.matcher(m.path("guid").asText()).matches() ? m.path("guid").asText() : null;
        if (guid == null) {
            skipped.add("a message without a usable guid");
            return;
        }
        if (m.path("isFromMe").asBoolean(false)) {
            skipped.add("message " + guid + ", sent from the Mac's own account");
            return;
        }
        if (m.path("associatedMessageGuid").isTextual() && !m.path("associatedMessageGuid").asText().isBlank()) {
            skipped.add("message " + guid + ", a tapback");
            return;
        }
        if (m.path("itemType").asInt(0) != 0) {
            skipped.add("message " + guid + ", a group event (name, member or icon change)");
            return;
        }
        JsonNode chat = m.path("chats").path(0);
        String chatGuid = chat.path("guid").isTextual() && BlueBubblesApi.GUID.matcher(chat.path("guid").asText()).matches()
                && !chat.path("guid").asText().contains("..") ? chat.path("guid").asText() : null;
        if (chatGuid == null) {
            skipped.add("message " + guid + " in no usable chat");
            return;
        }
        String address = m.path("handle").path("address").isTextual() ? BlueBubblesSettings.userId(m.path("handle").path("address").asText()) : null;
        if (address == null || !ADDRESS.matcher(address).matches()) {
            skipped.add("message " + guid + " without a usable sender address");
            return;
        }
        int style = chat.path("style").asInt(0);
        boolean group = style == GROUP_STYLE || style != DIRECT_STYLE && chatGuid.contains(";+;");
        String text = m.path("text").isTextual() ? m.path("text").asText().replace("\uFFFC", "").strip() : "";
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        for (JsonNode a : m.path("attachments")) {
            String ag = a.path("guid").isTextual() ? a.path("guid").asText() : "";
            if (!BlueBubblesApi.GUID.matcher(ag).matches() || ag.contains("..") || media.size() >= 10) {
                skipped.add("an attachment of message " + guid + " without a usable guid");
                continue;
            }
            String mime = a.path("mimeType").isTextual() ? BlueBubblesApi.clip(a.path("mimeType").asText(), 128) : null;
            String name = a.path("transferName").isTextual() ? BlueBubblesApi.clip(a.path("transferName").asText(), 255) : null;
            long size = a.path("totalBytes").canConvertToLong() ? Math.max(-1, a.path("totalBytes").asLong()) : -1;
            media.add(new MessageEvent.MediaRef(kind(mime), ag, mime, name, size));
        }
        if (group && requireMention && !mentioned(text)) {
            skipped.add("group message " + guid + ", which names none of mention_names (require_mention)");
            return;
        }
        if (group) {
            text = withoutMention(text);
        }
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        if (text.isBlank() && media.isEmpty()) {
            skipped.add("message " + guid + " with nothing Herald reads in it");
            return;
        }
        String replyTo = m.path("threadOriginatorGuid").isTextual() && BlueBubblesApi.GUID.matcher(m.path("threadOriginatorGuid").asText()).matches()
                ? m.path("threadOriginatorGuid").asText() : null;
        String chatName = group && chat.path("displayName").isTextual() && !chat.path("displayName").asText().isBlank()
                ? BlueBubblesApi.clip(chat.path("displayName").asText().strip(), 128) : null;
        SessionSource source = new SessionSource(platform, chatGuid, group ? ChatType.GROUP : ChatType.DM, address, null, null, chatName);
        MessageEvent event = new MessageEvent(EventIds.next(), source, text, guid, replyTo, media, MessageEvent.Origin.USER, now);
        out.add(new Incoming(event, chatGuid, group));
    }

    /** Whether {@code text} names the bot: one of {@code mention_names} as a whole word (an {@code @} before it allowed). */
    boolean mentioned(String text) {
        return mentions.stream().anyMatch(p -> p.matcher(text).find());
    }

    private String withoutMention(String text) {
        String out = text;
        for (Pattern p : mentions) {
            out = p.matcher(out).replaceFirst("");
        }
        String stripped = out.replaceAll("\\s{2,}", " ").strip();
        return stripped.isEmpty() ? text : stripped;
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
}
