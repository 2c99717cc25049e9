package dev.herald.platforms.googlechat;

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
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads one Google Chat interaction event (its JWT already verified) into what Herald acts on. A {@code MESSAGE} in a
 * direct message is one session; in a space each thread is a session ({@code message.thread.name}), and with
 * {@code require_mention} only a message that mentions the app (a {@code USER_MENTION} annotation of a {@code BOT},
 * {@code app_user} when set) or uses a slash command counts; its text is then {@code argumentText}, the text without
 * the mention. A {@code CARD_CLICKED} on an approval card's button is the command the button carries. Other events
 * ({@code ADDED_TO_SPACE}, {@code REMOVED_FROM_SPACE}, ...) are named in {@link Parsed#skipped()}; nothing here throws
 * but for a body that is not JSON.
 */
final class GoogleChatEvents {
    /** The function an approval card's buttons invoke, and the commands their {@code command} parameter carries. */
    static final String APPROVAL_FUNCTION = "herald_approval";
    static final Set<String> BUTTON_COMMANDS = Set.of("/approve", "/approve always", "/deny");
    /** A resource name segment ({@code spaces/<id>}, {@code threads/<id>}): letters, digits, {@code _ . -}. */
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
    /** An attachment's {@code attachmentDataRef.resourceName}: opaque, URL-safe characters only. */
    private static final Pattern RESOURCE = Pattern.compile("[A-Za-z0-9_.=+/-]{1,1024}");
    private static final int MAX_TEXT = 65_536;

    /** A message to hand to the gateway; {@code thread} is the thread's full name for the reply. */
    record Incoming(MessageEvent event, String space, String thread) {
    }

    record Parsed(Incoming message, String skipped) {
    }

    private final Platform platform;
    private final boolean requireMention;
    private final String appUser;

    GoogleChatEvents(Platform platform, boolean requireMention, String appUser) {
        this.platform = platform;
        this.requireMention = requireMention;
        this.appUser = appUser == null || appUser.isEmpty() ? null : appUser;
    }

    /** @throws java.io.IOException when the body is not JSON */
    Parsed parse(byte[] body, Instant now) throws java.io.IOException {
        JsonNode e = JsonHttp.JSON.readTree(body);
        if (e == null || !e.isObject()) {
            return skip("a body that is not an event object");
        }
        String type = e.path("type").asText("");
        if (!type.equals("MESSAGE") && !type.equals("CARD_CLICKED")) {
            return skip("a " + shortText(e.path("type")) + " event");
        }
        JsonNode m = e.path("message");
        String space = last(e.path("space").path("name").asText(""), "spaces/");
        if (space == null) {
            space = last(m.path("space").path("name").asText(""), "spaces/");
        }
        JsonNode user = e.path("user").isObject() ? e.path("user") : m.path("sender");
        String userId = last(user.path("name").asText(""), "users/");
        String messageName = m.path("name").asText("");
        String messageId = messageName.startsWith("spaces/" + space + "/messages/") && SEGMENT.matcher(messageName.substring(("spaces/" + space
                + "/messages/").length())).matches() ? messageName : null;
        if (space == null || userId == null || messageId == null) {
            return skip("a " + type + " event without a usable space, user or message name");
        }
        if ("BOT".equals(user.path("type").asText(""))) {
            return skip("a message from an app");
        }
        String spaceType = e.path("space").path("spaceType").asText(e.path("space").path("type").asText(""));
        boolean dm = spaceType.equals("DIRECT_MESSAGE") || spaceType.equals("DM") || e.path("space").path("singleUserBotDm").asBoolean(false);
        String threadName = m.path("thread").path("name").asText("");
        String thread = threadName.startsWith("spaces/" + space + "/threads/") ? clean(threadName.substring(("spaces/" + space + "/threads/").length()))
                : null;
        String text;
        String dedupe;
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        if (type.equals("CARD_CLICKED")) {
            String command = clickedCommand(e);
            if (command == null) {
                return skip("a card click that is not one of Herald's approval buttons");
            }
            text = command;
            String at = e.path("eventTime").asText("");
            dedupe = "click:" + messageId + ":" + userId + ":" + (at.matches("[0-9TZ:.+-]{1,40}") ? at : "?");
        } else {
            boolean mentioned = false;
            for (JsonNode a : m.path("annotations")) {
                String kind = a.path("type").asText("");
                JsonNode u = a.path("userMention").path("user");
                if (kind.equals("SLASH_COMMAND") || kind.equals("USER_MENTION") && "BOT".equals(u.path("type").asText(""))
                        && (appUser == null || appUser.equals(u.path("name").asText("")))) {
                    mentioned = true;
                }
            }
            if (!dm && requireMention && !mentioned) {
                return skip("a space message " + messageId + " that does not mention the app");
            }
            text = m.path("argumentText").isTextual() && (mentioned || !dm) ? m.path("argumentText").asText() : m.path("text").asText("");
            for (JsonNode at : m.path("attachment")) {
                if (media.size() >= 10) {
                    break;
                }
                String resource = at.path("attachmentDataRef").path("resourceName").asText("");
                if (resourceName(resource)) {
                    String mime = at.path("contentType").isTextual() && at.path("contentType").asText().length() <= 100 ? at.path("contentType").asText()
                            : null;
                    String kind = mime != null && mime.startsWith("image/") ? "photo" : mime != null && mime.startsWith("audio/") ? "audio"
                            : mime != null && mime.startsWith("video/") ? "video" : "document";
                    media.add(new MessageEvent.MediaRef(kind, resource, mime, clip(at.path("contentName").asText(null)), -1));
                }
            }
            dedupe = messageId;
        }
        text = text.strip();
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        if (text.isBlank() && media.isEmpty()) {
            return skip("a message " + messageId + " with nothing in it");
        }
        String sessionThread = dm ? null : thread;
        SessionSource source = new SessionSource(platform, space, dm ? ChatType.DM : ChatType.GROUP, userId, clip(user.path("displayName").asText(null)),
                sessionThread, clip(e.path("space").path("displayName").asText(null)));
        MessageEvent event = new MessageEvent(EventIds.next(), source, text, dedupe, null, media, MessageEvent.Origin.USER, now);
        return new Parsed(new Incoming(event, space, thread == null ? null : "spaces/" + space + "/threads/" + thread), null);
    }

    /** The command of a press of Herald's approval button: {@code common.invokedFunction} / {@code action.actionMethodName} and its {@code command}. */
    private static String clickedCommand(JsonNode e) {
        String function = e.path("common").path("invokedFunction").asText(e.path("action").path("actionMethodName").asText(""));
        if (!function.equals(APPROVAL_FUNCTION)) {
            return null;
        }
        String command = e.path("common").path("parameters").path("command").asText(null);
        if (command == null) {
            for (JsonNode p : e.path("action").path("parameters")) {
                if ("command".equals(p.path("key").asText(""))) {
                    command = p.path("value").asText(null);
                }
            }
        }
        return command != null && BUTTON_COMMANDS.contains(command) ? command : null;
    }

    /** The id after {@code prefix} in a resource name ({@code spaces/AAAA} is {@code AAAA}), or null. */
    static String last(String name, String prefix) {
        return name.startsWith(prefix) ? clean(name.substring(prefix.length())) : null;
    }

    static String clean(String s) {
        return s != null && SEGMENT.matcher(s).matches() && !s.contains("..") ? PlatformIds.clean(s) : null;
    }

    /** Whether {@code ref} is an attachment resource name this parser would make (the fetcher checks it again). */
    static boolean resourceName(String ref) {
        return ref != null && RESOURCE.matcher(ref).matches() && !ref.contains("..") && !ref.startsWith("/");
    }

    private static Parsed skip(String why) {
        return new Parsed(null, why);
    }

    private static String clip(String s) {
        if (s == null) {
            return null;
        }
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 128 ? clean.substring(0, 128) : clean;
    }

    private static String shortText(JsonNode n) {
        return n == null || n.isMissingNode() || n.isNull() ? "none" : "\"" + clip(n.asText()) + "\"";
    }
}
