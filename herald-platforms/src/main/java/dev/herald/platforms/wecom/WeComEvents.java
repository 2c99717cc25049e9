package dev.herald.platforms.wecom;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.PlatformIds;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads one decrypted callback message (WeCom's "接收普通消息" and "接收事件" XML, as a field map) into what Herald acts on:
 * text, image, voice, video and file messages (the media by their {@code MediaId}, fetched later through
 * {@code media/get}; a {@code PicUrl} is never followed), locations and links as a line of text, and the
 * {@code template_card_event} of Herald's approval buttons as the command the button names. Other events
 * ({@code subscribe}, {@code enter_agent}, ...) and unknown types are {@link Read#skipped()} with a reason.
 */
final class WeComEvents {
    /** Approval button keys and the commands they stand for. */
    static final Map<String, String> BUTTONS = Map.of("herald_approve", "/approve", "herald_approve_always", "/approve always",
            "herald_deny", "/deny");
    /** The start of a button press's dedupe key. */
    static final String CARD_PREFIX = "card:";
    private static final Pattern USER_ID = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.@:=+/-]{1,256}");
    private static final int MAX_TEXT = 65_536;

    /** What one callback message is: an event for the gateway, or a reason it was skipped. */
    record Read(MessageEvent event, String skipped) {
    }

    private final Platform platform;
    private final long agentId;

    WeComEvents(Platform platform, long agentId) {
        this.platform = platform;
        this.agentId = agentId;
    }

    Read read(Map<String, String> m, Instant now) {
        String from = m.getOrDefault("FromUserName", "");
        String type = m.getOrDefault("MsgType", "");
        if (!USER_ID.matcher(from).matches() || PlatformIds.clean(from) == null) {
            return skip("a " + clip(type) + " message without a usable FromUserName");
        }
        String agent = m.getOrDefault("AgentID", "");
        if (!agent.isEmpty() && !agent.equals(Long.toString(agentId))) {
            return skip("a message for agent " + clip(agent) + ", not platforms.wecom.agent_id");
        }
        String msgId = m.getOrDefault("MsgId", "");
        String created = m.getOrDefault("CreateTime", "");
        String text = "";
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        switch (type) {
            case "text" -> text = m.getOrDefault("Content", "");
            case "image" -> media(m, "photo", "image/jpeg", null, media);
            case "voice" -> media(m, "voice", "amr".equalsIgnoreCase(m.get("Format")) ? "audio/amr" : null, null, media);
            case "video" -> media(m, "video", "video/mp4", null, media);
            case "file" -> media(m, "document", null, m.get("FileName") == null ? m.get("Title") : m.get("FileName"), media);
            case "location" -> text = "[location: " + clip(m.getOrDefault("Location_X", "?")) + ", " + clip(m.getOrDefault("Location_Y", "?"))
                    + (m.containsKey("Label") ? " " + clip(m.get("Label")) : "") + "]";
            case "link" -> text = "[link: " + clip(m.getOrDefault("Title", "")) + " " + clip(m.getOrDefault("Url", "")) + "]";
            case "event" -> {
                String event = m.getOrDefault("Event", "");
                String key = m.getOrDefault("EventKey", "");
                if (!event.equals("template_card_event") || !BUTTONS.containsKey(key)) {
                    return skip("event " + clip(event) + " from " + from + " (Herald reads only its approval buttons)");
                }
                text = BUTTONS.get(key);
                // WeCom: events have no MsgId; dedupe by FromUserName + CreateTime (and the button)
                msgId = created.matches("[0-9]{1,12}") ? CARD_PREFIX + from + ":" + created + ":" + key : "";
            }
            default -> {
                return skip("a message of type " + clip(type) + ", which Herald does not read");
            }
        }
        if (!ID.matcher(msgId).matches()) {
            return skip("a " + clip(type) + " message from " + from + " without a usable MsgId");
        }
        if ((type.equals("image") || type.equals("voice") || type.equals("video") || type.equals("file")) && media.isEmpty()) {
            return skip("a " + type + " message " + msgId + " without a usable MediaId");
        }
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        if (text.isBlank() && media.isEmpty()) {
            return skip("a " + type + " message " + msgId + " with nothing in it");
        }
        SessionSource source = new SessionSource(platform, from, ChatType.DM, from, null, null, null);
        return new Read(new MessageEvent(EventIds.next(), source, text, msgId, null, media, MessageEvent.Origin.USER, now), null);
    }

    private static void media(Map<String, String> m, String kind, String mime, String name, List<MessageEvent.MediaRef> out) {
        String id = m.getOrDefault("MediaId", "");
        if (ID.matcher(id).matches() && !id.contains("..")) {
            out.add(new MessageEvent.MediaRef(kind, id, mime, name == null || name.isBlank() ? null : clip(name), -1));
        }
    }

    private static Read skip(String why) {
        return new Read(null, why);
    }

    static String clip(String s) {
        String clean = s == null ? "" : s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 120 ? clean.substring(0, 120) + "..." : clean;
    }
}
