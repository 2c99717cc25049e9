package dev.herald.platforms.teams;

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
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one Bot Framework activity (its JWT already verified) into what Herald acts on. A {@code message} activity from
 * Teams ({@code channelId} {@code msteams}) becomes one {@link MessageEvent}: in a personal chat the conversation is
 * the session; in a group chat the chat; in a channel the thread (the conversation id's {@code ;messageid=} part, or the
 * post itself when it starts one). In group chats and channels, with {@code require_mention}, only a message with a
 * {@code mention} entity of the bot ({@code recipient.id}) counts, and the {@code <at>…</at>} of the bot is taken out
 * of the text. A press of an approval card's button (an {@code Action.Submit}) arrives as a message whose {@code value}
 * names the command. Everything else (conversationUpdate, reactions, invokes, other channels) is named in
 * {@link Parsed#skipped()}; nothing here throws but for a body that is not JSON.
 */
final class TeamsActivities {
    /** The commands the approval card's buttons carry in {@code value.herald}. */
    static final Set<String> BUTTON_COMMANDS = Set.of("/approve", "/approve always", "/deny");
    /** Teams ids (conversation, user, activity): the id rule's characters, at most 256 (personal conversation ids are long). */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:@+=-]{1,256}");
    private static final Pattern AT = Pattern.compile("<at>([^<]{0,256})</at>", Pattern.CASE_INSENSITIVE);
    private static final int MAX_TEXT = 65_536;

    /**
     * A message to hand to the gateway.
     *
     * @param conversationId the conversation as the Connector names it (with {@code ;messageid=} for a channel thread)
     * @param activityId     the activity, which a reply answers
     */
    record Incoming(MessageEvent event, String serviceUrl, String conversationId, String activityId) {
    }

    /** What the activity was: a message, or why it is skipped. */
    record Parsed(Incoming message, String skipped) {
    }

    private final Platform platform;
    private final boolean requireMention;

    TeamsActivities(Platform platform, boolean requireMention) {
        this.platform = platform;
        this.requireMention = requireMention;
    }

    /**
     * Reads {@code body}.
     *
     * @throws java.io.IOException when the body is not JSON
     */
    Parsed parse(byte[] body, Instant now) throws java.io.IOException {
        JsonNode a = JsonHttp.JSON.readTree(body);
        if (a == null || !a.isObject()) {
            return skip("a body that is not an activity object");
        }
        String type = a.path("type").asText("");
        if (!type.equals("message")) {
            return skip("a " + shortText(a.path("type")) + " activity");
        }
        if (!"msteams".equals(a.path("channelId").asText(""))) {
            return skip("a message from channel " + shortText(a.path("channelId")) + ", not msteams");
        }
        String activityId = id(a.path("id"));
        String fullConversation = a.path("conversation").path("id").asText("");
        String conversation = fullConversation;
        String threadOf = null;
        int semi = fullConversation.indexOf(";messageid=");
        if (semi >= 0) {
            conversation = fullConversation.substring(0, semi);
            threadOf = clean(fullConversation.substring(semi + 11));
        }
        conversation = clean(conversation);
        String serviceUrl = a.path("serviceUrl").asText("");
        String fromId = id(a.path("from").path("id"));
        String aad = id(a.path("from").path("aadObjectId"));
        String botId = id(a.path("recipient").path("id"));
        if (activityId == null || conversation == null || fromId == null || serviceUrl.isEmpty() || semi >= 0 && threadOf == null) {
            return skip("a message without a usable id, conversation, sender or serviceUrl");
        }
        String kind = a.path("conversation").path("conversationType").asText("personal");
        ChatType chatType = switch (kind) {
            case "channel" -> ChatType.CHANNEL;
            case "groupChat" -> ChatType.GROUP;
            default -> a.path("conversation").path("isGroup").asBoolean(false) ? ChatType.GROUP : ChatType.DM;
        };
        String text = a.path("text").isTextual() ? a.path("text").asText() : "";
        String command = null;
        JsonNode value = a.path("value");
        if (value.isObject() && BUTTON_COMMANDS.contains(value.path("herald").asText(""))) {
            command = value.path("herald").asText();
        }
        boolean mentioned = false;
        String botName = null;
        for (JsonNode e : a.path("entities")) {
            if ("mention".equals(e.path("type").asText("")) && botId != null && botId.equals(e.path("mentioned").path("id").asText(null))) {
                mentioned = true;
                botName = e.path("mentioned").path("name").asText(null);
            }
        }
        if (chatType != ChatType.DM && requireMention && !mentioned && command == null) {
            return skip("a " + kind + " message " + activityId + " that does not mention the bot");
        }
        text = withoutBotMention(text, botName).strip();
        if (command != null) {
            text = command;
        }
        if (text.length() > MAX_TEXT) {
            text = text.substring(0, MAX_TEXT);
        }
        List<MessageEvent.MediaRef> media = attachments(a.path("attachments"));
        if (text.isBlank() && media.isEmpty()) {
            return skip("a message " + activityId + " with nothing in it");
        }
        String user = aad != null ? aad.toLowerCase(Locale.ROOT) : fromId;
        String name = a.path("from").path("name").asText(null);
        String chatName = a.path("conversation").path("name").asText(null);
        String thread = chatType == ChatType.CHANNEL ? (threadOf != null ? threadOf : activityId) : null;
        SessionSource source = new SessionSource(platform, conversation, chatType, user, clip(name), thread, clip(chatName));
        String replyTo = id(a.path("replyToId"));
        MessageEvent event = new MessageEvent(EventIds.next(), source, text, conversation + "#" + activityId, replyTo, media,
                MessageEvent.Origin.USER, now);
        String apiConversation = thread != null ? conversation + ";messageid=" + thread : conversation;
        return new Parsed(new Incoming(event, serviceUrl, apiConversation, activityId), null);
    }

    /** The activity id in a message id this parser made ({@code <conversation>#<activity>}), or null. */
    static String activityOf(String messageId) {
        if (messageId == null) {
            return null;
        }
        int hash = messageId.lastIndexOf('#');
        return clean(hash < 0 ? messageId : messageId.substring(hash + 1));
    }

    /**
     * The files of a message: images and files Teams hosts at the serviceUrl ({@code contentUrl}), and files from
     * OneDrive or SharePoint ({@code application/vnd.microsoft.teams.file.download.info}, by their pre-authenticated
     * {@code downloadUrl}). The reference is {@code c:<url>} or {@code d:<url>}; the fetcher checks the host again.
     * Cards and the HTML copy of the text are not files.
     */
    private static List<MessageEvent.MediaRef> attachments(JsonNode list) {
        List<MessageEvent.MediaRef> out = new ArrayList<>();
        for (JsonNode at : list) {
            if (out.size() >= 10) {
                break;
            }
            String type = at.path("contentType").asText("");
            String name = at.path("name").isTextual() ? clip(at.path("name").asText()) : null;
            if (type.equals("application/vnd.microsoft.teams.file.download.info")) {
                String url = at.path("content").path("downloadUrl").asText("");
                String fileType = at.path("content").path("fileType").asText("");
                if (url.startsWith("https://") && url.length() <= 4096) {
                    out.add(new MessageEvent.MediaRef("document", "d:" + url, mimeOf(fileType), name, -1));
                }
            } else if ((type.startsWith("image/") || type.startsWith("audio/") || type.startsWith("video/") || type.equals("application/octet-stream"))
                    && at.path("contentUrl").isTextual()) {
                String url = at.path("contentUrl").asText();
                if ((url.startsWith("https://") || url.startsWith("http://")) && url.length() <= 4096) {
                    String kind = type.startsWith("image/") ? "photo" : type.startsWith("audio/") ? "audio" : type.startsWith("video/") ? "video" : "document";
                    out.add(new MessageEvent.MediaRef(kind, "c:" + url, type.length() > 100 ? null : type, name, -1));
                }
            }
        }
        return out;
    }

    private static String mimeOf(String fileType) {
        return switch (fileType.toLowerCase(Locale.ROOT)) {
            case "pdf" -> "application/pdf";
            case "png" -> "image/png";
            case "jpg", "jpeg" -> "image/jpeg";
            case "txt" -> "text/plain";
            case "docx" -> "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
            case "xlsx" -> "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
            default -> null;
        };
    }

    /** {@code text} without the bot's {@code <at>Name</at>} (any {@code <at>} when the name is unknown). */
    static String withoutBotMention(String text, String botName) {
        Matcher m = AT.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            boolean bot = botName == null || m.group(1).strip().equalsIgnoreCase(botName.strip());
            m.appendReplacement(sb, bot ? "" : Matcher.quoteReplacement("@" + m.group(1)));
        }
        m.appendTail(sb);
        return sb.toString().replace("&nbsp;", " ");
    }

    private static String id(JsonNode n) {
        return n != null && n.isTextual() ? clean(n.asText()) : PlatformIds.of(n);
    }

    static String clean(String s) {
        return s != null && ID.matcher(s).matches() && !s.contains("..") ? s : null;
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
