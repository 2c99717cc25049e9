package dev.herald.platforms.whatsapp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlatformIds;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads one webhook call's body (already verified by its signature) into what Herald acts on: the messages people sent
 * ({@code entry[].changes[].value.messages[]}, with the sender's name from {@code contacts[]}), the delivery statuses
 * of Herald's own messages ({@code statuses[]}) and the errors Meta reports ({@code errors[]}). Only changes of the
 * {@code messages} field for the configured {@code metadata.phone_number_id} count. Whatever is not understood is
 * named in {@link Parsed#skipped()} and left out; nothing here throws but for a body that is not JSON.
 */
final class WhatsAppEvents {
    /** The ids of the approval buttons Herald sends; a press of one is the command it names. */
    static final Set<String> BUTTON_COMMANDS = Set.of("/approve", "/approve always", "/deny");
    /** A WhatsApp message id ({@code wamid.} and base64): the store's dedupe key. */
    private static final Pattern MESSAGE_ID = Pattern.compile("[A-Za-z0-9_.:=+/-]{1,256}");
    private static final int MAX_TEXT = 65_536;

    /** A message someone sent, and when (WhatsApp's timestamp, which starts the 24-hour window). */
    record Incoming(MessageEvent event, String waId, Instant sentAt) {
    }

    /** A status of a message Herald sent: sent, delivered, read or failed (with Graph's errors). */
    record Status(String messageId, String status, String recipient, List<String> errors) {
    }

    /** What one call carried. */
    record Parsed(List<Incoming> messages, List<Status> statuses, List<String> errors, List<String> skipped) {
    }

    private final Platform platform;
    private final String phoneNumberId;

    WhatsAppEvents(Platform platform, String phoneNumberId) {
        this.platform = platform;
        this.phoneNumberId = phoneNumberId;
    }

    /**
     * Reads {@code body}.
     *
     * @param now when the call arrived (the events' {@code receivedAt})
     * @throws java.io.IOException when the body is not JSON (Jackson's JsonProcessingException)
     */
    Parsed parse(byte[] body, Instant now) throws java.io.IOException {
        JsonNode root = JsonHttp.JSON.readTree(body);
        List<Incoming> messages = new ArrayList<>();
        List<Status> statuses = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        if (root == null || !root.isObject() || !"whatsapp_business_account".equals(root.path("object").asText(""))) {
            skipped.add("not a whatsapp_business_account notification (object " + shortText(root == null ? null : root.path("object")) + ")");
            return new Parsed(messages, statuses, errors, skipped);
        }
        for (JsonNode entry : root.path("entry")) {
            for (JsonNode change : entry.path("changes")) {
                String field = change.path("field").asText("");
                if (!field.equals("messages")) {
                    skipped.add("a change of field " + shortText(change.path("field")) + " (Herald reads messages only)");
                    continue;
                }
                JsonNode value = change.path("value");
                String to = value.path("metadata").path("phone_number_id").asText("");
                if (!to.equals(phoneNumberId)) {
                    skipped.add("a change for phone number id " + shortText(value.path("metadata").path("phone_number_id"))
                            + ", not the configured one");
                    continue;
                }
                Map<String, String> names = new HashMap<>();
                for (JsonNode c : value.path("contacts")) {
                    String id = PlatformIds.of(c.path("wa_id"));
                    String name = c.path("profile").path("name").asText("");
                    if (id != null && !name.isBlank()) {
                        names.put(id, name.length() > 128 ? name.substring(0, 128) : name);
                    }
                }
                for (JsonNode m : value.path("messages")) {
                    message(m, names, now, messages, skipped);
                }
                for (JsonNode s : value.path("statuses")) {
                    status(s, statuses, skipped);
                }
                for (JsonNode e : value.path("errors")) {
                    errors.add(error(e));
                }
            }
        }
        return new Parsed(messages, statuses, errors, skipped);
    }

    private void message(JsonNode m, Map<String, String> names, Instant now, List<Incoming> out, List<String> skipped) {
        String from = PlatformIds.of(m.path("from"));
        String id = m.path("id").isTextual() && MESSAGE_ID.matcher(m.path("id").asText()).matches() && !m.path("id").asText().contains("..")
                ? m.path("id").asText() : null;
        String type = m.path("type").asText("");
        if (from == null || id == null) {
            skipped.add("a message without a usable sender or id");
            return;
        }
        String text = "";
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        switch (type) {
            case "text" -> text = m.path("text").path("body").asText("");
            case "image", "video", "audio", "document", "sticker" -> {
                JsonNode file = m.path(type);
                String mediaId = PlatformIds.of(file.path("id"));
                if (mediaId == null) {
                    skipped.add("a " + type + " message " + id + " without a usable media id");
                    return;
                }
                String kind = switch (type) {
                    case "image" -> "photo";
                    case "audio" -> file.path("voice").asBoolean(false) ? "voice" : "audio";
                    default -> type;
                };
                String mime = file.path("mime_type").isTextual() ? file.path("mime_type").asText() : null;
                String name = file.path("filename").isTextual() ? file.path("filename").asText() : null;
                media.add(new MessageEvent.MediaRef(kind, mediaId, mime, name, -1));
                text = file.path("caption").asText("");
            }
            case "interactive" -> {
                JsonNode i = m.path("interactive");
                JsonNode reply = i.path("button_reply").isObject() ? i.path("button_reply") : i.path("list_reply");
                String buttonId = reply.path("id").asText("");
                text = BUTTON_COMMANDS.contains(buttonId) ? buttonId : reply.path("title").asText("");
            }
            case "button" -> text = m.path("button").path("text").asText("");
            case "location" -> {
                JsonNode l = m.path("location");
                if (l.path("latitude").isNumber() && l.path("longitude").isNumber()) {
                    text = "[location: " + l.path("latitude").asDouble() + ", " + l.path("longitude").asDouble()
                            + (l.path("name").isTextual() ? " " + l.path("name").asText() : "")
                            + (l.path("address").isTextual() ? ", " + l.path("address").asText() : "") + "]";
                }
            }
            default -> {
                skipped.add("a message " + id + " of type " + shortText(m.path("type")) + ", which Herald does not read");
                return;
            }
        }
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        if (text.isBlank() && media.isEmpty()) {
            skipped.add("a " + shortText(m.path("type")) + " message " + id + " with nothing in it");
            return;
        }
        String replyTo = m.path("context").path("id").isTextual() && MESSAGE_ID.matcher(m.path("context").path("id").asText()).matches()
                ? m.path("context").path("id").asText() : null;
        Instant sentAt = now;
        String ts = m.path("timestamp").asText("");
        if (ts.matches("[0-9]{1,12}")) {
            Instant t = Instant.ofEpochSecond(Long.parseLong(ts));
            sentAt = t.isAfter(now) ? now : t;
        }
        SessionSource source = new SessionSource(platform, from, ChatType.DM, from, names.get(from), null, null);
        MessageEvent event = new MessageEvent(EventIds.next(), source, text, id, replyTo, media, MessageEvent.Origin.USER, now);
        out.add(new Incoming(event, from, sentAt));
    }

    private static void status(JsonNode s, List<Status> out, List<String> skipped) {
        String id = s.path("id").asText("");
        String status = s.path("status").asText("");
        if (id.isEmpty() || status.isEmpty()) {
            skipped.add("a status without an id or a status");
            return;
        }
        List<String> errors = new ArrayList<>();
        for (JsonNode e : s.path("errors")) {
            errors.add(error(e));
        }
        out.add(new Status(clip(id), clip(status), clip(s.path("recipient_id").asText("")), errors));
    }

    private static String error(JsonNode e) {
        String details = e.path("error_data").path("details").asText("");
        return "error " + e.path("code").asInt(0) + ": " + clip(e.path("title").asText(e.path("message").asText("")))
                + (details.isBlank() ? "" : " (" + clip(details) + ")");
    }

    private static String clip(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 200 ? clean.substring(0, 200) + "..." : clean;
    }

    private static String shortText(JsonNode n) {
        return n == null || n.isMissingNode() || n.isNull() ? "none" : "\"" + clip(n.asText()) + "\"";
    }
}
