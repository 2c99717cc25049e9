package dev.herald.platforms.signal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What signal-cli writes for a received message ({@code {"envelope":{...},"account":"+..."}}, the same object as the
 * {@code params} of a JSON-RPC {@code receive} notification) made into a Herald event, or nothing.
 *
 * <p>Read: {@code envelope.sourceUuid} (the sender's ACI), {@code sourceNumber} (absent when the sender hides it),
 * {@code sourceName}, {@code timestamp} (with the author, Signal's id of the message), and {@code dataMessage}:
 * {@code message}, {@code groupInfo.groupId}/{@code groupName}/{@code type}, {@code mentions[]}
 * ({@code uuid}, {@code number}, {@code start}, {@code length} in UTF-16 units; the text holds U+FFFC there),
 * {@code attachments[]} ({@code id}, {@code contentType}, {@code filename}, {@code size}) and {@code quote}
 * ({@code id}, {@code authorUuid}, {@code authorNumber}). Receipts, typing, sync and call messages, group updates, and
 * the bot's own messages make no event.
 *
 * <p>Ids: the chat of a direct message is the sender's UUID (their number when Signal gives no UUID), a group's chat is
 * its base64 group id; the user is the UUID, or the number when that number is listed in {@code allowed_users} or
 * {@code admins} (so a listed number matches). The event's message id is {@code <sender>:<timestamp>}, unique across
 * Signal, and the gateway's durable dedupe drops a message signal-cli hands over again.
 */
final class SignalEnvelopes {
    private static final Logger log = LoggerFactory.getLogger(SignalEnvelopes.class);
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Pattern NUMBER = Pattern.compile("\\+[1-9][0-9]{4,17}");
    /** A base64 group id (32 bytes for groups v2, 16 for v1). */
    private static final Pattern GROUP_ID = Pattern.compile("[A-Za-z0-9+/]{20,88}={0,2}");
    /** signal-cli's attachment ids: the stored file's name. */
    private static final Pattern ATTACHMENT_ID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");
    private static final int MAX_TEXT = 64 * 1024;
    private static final int MAX_ATTACHMENTS = 32;
    static final char MENTION = '\uFFFC';

    private final Platform platform;
    private final String account;
    private final Set<String> listedNumbers;
    private final boolean requireMention;
    private final Clock clock;
    private volatile String selfUuid;

    SignalEnvelopes(Platform platform, String account, Set<String> listedNumbers, boolean requireMention, Clock clock) {
        this.platform = platform;
        this.account = account;
        this.listedNumbers = Set.copyOf(listedNumbers);
        this.requireMention = requireMention;
        this.clock = clock;
    }

    /** A group chat id (base64), as opposed to a person's UUID or number. */
    static boolean isGroup(String chatId) {
        return !NUMBER.matcher(chatId).matches() && !UUID.matcher(chatId.toLowerCase(Locale.ROOT)).matches();
    }

    /** Where a quote points: the author (UUID or number) and the timestamp of a message id {@code <author>:<timestamp>}. */
    record Quote(String author, long timestamp) {
    }

    /** The author and timestamp of one of this class's message ids, or empty. */
    static Optional<Quote> quoteOf(String messageId) {
        if (messageId == null) {
            return Optional.empty();
        }
        int colon = messageId.lastIndexOf(':');
        if (colon <= 0 || colon == messageId.length() - 1) {
            return Optional.empty();
        }
        String author = messageId.substring(0, colon);
        if (!NUMBER.matcher(author).matches() && !UUID.matcher(author).matches()) {
            return Optional.empty();
        }
        try {
            long ts = Long.parseLong(messageId.substring(colon + 1));
            return ts > 0 ? Optional.of(new Quote(author, ts)) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The event for one received object, or empty (not a message for the agent, or unreadable: then with a log line
     * naming the problem, never the text).
     */
    Optional<MessageEvent> normalise(JsonNode received) {
        JsonNode envelope = envelopeOf(received);
        if (envelope == null) {
            log.warn("signal - an event without an envelope object was skipped");
            return Optional.empty();
        }
        String uuid = text(envelope, "sourceUuid").map(s -> s.toLowerCase(Locale.ROOT)).filter(s -> UUID.matcher(s).matches()).orElse(null);
        String number = text(envelope, "sourceNumber").filter(s -> NUMBER.matcher(s).matches()).orElse(null);
        if (number == null && uuid == null) {
            String legacy = text(envelope, "source").orElse("");
            if (NUMBER.matcher(legacy).matches()) {
                number = legacy;
            } else if (UUID.matcher(legacy.toLowerCase(Locale.ROOT)).matches()) {
                uuid = legacy.toLowerCase(Locale.ROOT);
            }
        }
        if (account.equals(number)) {
            if (uuid != null) {
                selfUuid = uuid; // our own message from another device: now a mention by UUID is recognised too
            }
            return Optional.empty();
        }
        if (uuid != null && uuid.equals(selfUuid)) {
            return Optional.empty();
        }
        JsonNode data = envelope.get("dataMessage");
        if (data == null || !data.isObject()) {
            return Optional.empty(); // a receipt, typing, sync, call or story message: nothing for the agent
        }
        if (uuid == null && number == null) {
            log.warn("signal - a message without a valid sender (sourceUuid or sourceNumber) was skipped");
            return Optional.empty();
        }
        long timestamp = envelope.path("timestamp").canConvertToLong() ? envelope.path("timestamp").asLong() : 0;
        if (timestamp <= 0) {
            timestamp = data.path("timestamp").canConvertToLong() ? data.path("timestamp").asLong() : 0;
        }
        if (timestamp <= 0) {
            log.warn("signal - a message from {} without a valid timestamp was skipped", uuid != null ? uuid : number);
            return Optional.empty();
        }
        String sender = uuid != null ? uuid : number;
        String userId = number != null && listedNumbers.contains(number) ? number : sender;
        String messageId = sender + ":" + timestamp;

        JsonNode group = data.get("groupInfo");
        String groupId = null;
        String groupName = null;
        if (group != null && group.isObject()) {
            groupId = text(group, "groupId").orElse(null);
            if (groupId == null || !GROUP_ID.matcher(groupId).matches()) {
                log.warn("signal - message {} names a group id signal-cli would not write; skipped", messageId);
                return Optional.empty();
            }
            if (!group.path("type").asText("DELIVER").equals("DELIVER")) {
                return Optional.empty(); // a group update (members, title): nothing for the agent
            }
            groupName = text(group, "groupName").orElse(null);
        }

        String body = data.path("message").isTextual() ? data.path("message").asText() : "";
        if (body.length() > MAX_TEXT) {
            log.warn("signal - message {} has {} characters, over the {} Herald reads; skipped", messageId, body.length(), MAX_TEXT);
            return Optional.empty();
        }
        boolean mentioned = false;
        List<int[]> ownMentions = new ArrayList<>();
        JsonNode mentions = data.get("mentions");
        if (mentions != null && mentions.isArray()) {
            for (JsonNode m : mentions) {
                String mu = m.path("uuid").isTextual() ? m.path("uuid").asText().toLowerCase(Locale.ROOT) : null;
                String mn = m.path("number").isTextual() ? m.path("number").asText() : null;
                boolean self = account.equals(mn) || mu != null && mu.equals(selfUuid);
                if (self) {
                    mentioned = true;
                    int start = m.path("start").asInt(-1);
                    int length = m.path("length").asInt(-1);
                    if (start >= 0 && length > 0 && (long) start + length <= body.length()) {
                        ownMentions.add(new int[] {start, length});
                    }
                }
            }
        }
        if (groupId != null && requireMention && !mentioned) {
            return Optional.empty();
        }
        String text = withoutOwnMentions(body, ownMentions).replace(MENTION, '@').strip();

        List<MessageEvent.MediaRef> media = new ArrayList<>();
        JsonNode attachments = data.get("attachments");
        if (attachments != null && attachments.isArray()) {
            String chat = groupId != null ? groupId : sender;
            int unreadable = 0;
            for (JsonNode a : attachments) {
                if (media.size() + unreadable == MAX_ATTACHMENTS) {
                    log.warn("signal - message {} has more than {} attachments; the rest are left out", messageId, MAX_ATTACHMENTS);
                    break;
                }
                String id = a.isObject() ? text(a, "id").orElse(null) : null;
                if (id == null || !ATTACHMENT_ID.matcher(id).matches()) {
                    unreadable++;
                    continue;
                }
                String type = text(a, "contentType").filter(t -> t.length() <= 127).orElse(null);
                String name = text(a, "filename").filter(t -> t.length() <= 255).orElse(null);
                long size = a.path("size").canConvertToLong() ? a.path("size").asLong() : -1;
                media.add(new MessageEvent.MediaRef(kind(type), SignalMedia.ref(id, chat), type, name, size));
            }
            if (unreadable > 0) {
                log.warn("signal - {} attachment(s) of message {} have no id signal-cli would write; left out", unreadable, messageId);
            }
        }
        if (text.isEmpty() && media.isEmpty()) {
            return Optional.empty(); // a sticker, a reaction, a deletion, a bare mention: nothing to answer
        }

        String replyTo = null;
        JsonNode quote = data.get("quote");
        if (quote != null && quote.isObject() && quote.path("id").canConvertToLong() && quote.path("id").asLong() > 0) {
            String author = text(quote, "authorUuid").map(s -> s.toLowerCase(Locale.ROOT)).filter(s -> UUID.matcher(s).matches())
                    .or(() -> text(quote, "authorNumber").filter(s -> NUMBER.matcher(s).matches())).orElse(null);
            if (author != null) {
                replyTo = author + ":" + quote.path("id").asLong();
            }
        }
        String name = text(envelope, "sourceName").filter(s -> s.length() <= 200).orElse(null);
        SessionSource source = groupId != null
                ? new SessionSource(platform, groupId, ChatType.GROUP, userId, name, null, groupName)
                : new SessionSource(platform, sender, ChatType.DM, userId, name, null, null);
        return Optional.of(new MessageEvent(EventIds.next(), source, text, messageId, replyTo, media, MessageEvent.Origin.USER,
                clock.instant()));
    }

    private static JsonNode envelopeOf(JsonNode received) {
        if (received == null || !received.isObject()) {
            return null;
        }
        for (JsonNode candidate : List.of(received, received.path("params"), received.path("params").path("result"))) {
            JsonNode e = candidate.get("envelope");
            if (e != null && e.isObject()) {
                return e;
            }
        }
        return null;
    }

    /** {@code body} without the bot's own mentions (each one U+FFFC), so "@bot what is 2+2?" reads "what is 2+2?". */
    private static String withoutOwnMentions(String body, List<int[]> ranges) {
        if (ranges.isEmpty()) {
            return body;
        }
        boolean[] drop = new boolean[body.length()];
        for (int[] r : ranges) {
            for (int i = r[0]; i < r[0] + r[1]; i++) {
                drop[i] = true;
            }
        }
        StringBuilder out = new StringBuilder(body.length());
        for (int i = 0; i < body.length(); i++) {
            if (!drop[i]) {
                out.append(body.charAt(i));
            }
        }
        return out.toString().replaceAll(" {2,}", " ");
    }

    private static String kind(String contentType) {
        if (contentType == null) {
            return "file";
        }
        String t = contentType.toLowerCase(Locale.ROOT);
        return t.startsWith("image/") ? "image" : t.startsWith("audio/") ? "voice" : "file";
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && v.isTextual() && !v.asText().isBlank() ? Optional.of(v.asText().strip()) : Optional.empty();
    }
}
