package dev.herald.platforms.xmpp;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inbound {@code <message>} stanzas normalised into {@link MessageEvent}s at the edge, and the ones that start no
 * turn told apart, with a log line for each that a person sent and Herald will not answer.
 *
 * <p>One-to-one ({@code chat} or {@code normal}): the chat and the user are the sender's bare JID. Rooms
 * ({@code groupchat} from a configured room): the chat is the room, the user the occupant's real bare JID (one
 * session per user per room); only messages that mention the room nick start a turn when mentions are required;
 * Herald's own reflected messages, the room's subject and history are passed over. An occupant whose real JID the
 * room hides cannot be matched against {@code allowed_users}: the message is refused with a log line, unless
 * {@code allow_all_users} is on (the occupant JID is then the user).
 *
 * <p>The message id for the gateway's durable dedupe is the chat and the server's {@code <stanza-id>} (XEP-0359)
 * when it was set by the chat's own server (the account for one-to-one, the room for rooms), else the sender's
 * {@code <origin-id>}, else the stanza's {@code id}; a message with none of them is never deduplicated.
 */
final class XmppMessages {
    private static final Logger log = LoggerFactory.getLogger(XmppMessages.class);
    static final String SID_NS = "urn:xmpp:sid:0";
    static final String MUC_USER_NS = "http://jabber.org/protocol/muc#user";
    static final String DELAY_NS = "urn:xmpp:delay";
    /** Longest id part kept as it is; longer ones are hashed. */
    private static final int MAX_ID = 100;

    private final Platform platform;
    private final Jid account;
    private final Rooms rooms;
    private final boolean requireMention;
    private final boolean allowAllUsers;
    private final Clock clock;
    private final Pattern mention;
    private final Pattern address;
    private final java.util.function.Predicate<String> ownUpload;

    XmppMessages(Platform platform, Jid account, Rooms rooms, boolean requireMention, boolean allowAllUsers, Clock clock) {
        this(platform, account, rooms, requireMention, allowAllUsers, clock, url -> false);
    }

    /** With {@code ownUpload} telling a URL of the server's own upload service: a body that is just such a URL is a file. */
    XmppMessages(Platform platform, Jid account, Rooms rooms, boolean requireMention, boolean allowAllUsers, Clock clock,
            java.util.function.Predicate<String> ownUpload) {
        this.ownUpload = ownUpload;
        this.platform = platform;
        this.account = account;
        this.rooms = rooms;
        this.requireMention = requireMention;
        this.allowAllUsers = allowAllUsers;
        this.clock = clock;
        String nick = Pattern.quote(rooms.nick());
        this.mention = Pattern.compile("(?iu)(^|[^\\p{L}\\p{N}_])@?" + nick + "($|[^\\p{L}\\p{N}_])");
        this.address = Pattern.compile("(?iu)^\\s*@?" + nick + "\\s*[:,]?\\s+");
    }

    /** The event {@code message} starts, or empty when it starts none. Never throws for any stanza. */
    Optional<MessageEvent> normalise(Element message) {
        String type = Optional.ofNullable(message.attr("type")).orElse("normal");
        Jid from = Jid.parse(message.attr("from"));
        Optional<Element> body = message.child("body", XmppConnection.CLIENT_NS);
        if (type.equals("error") || type.equals("headline") || from == null) {
            log.debug("xmpp - passed over a {} message from {}", type, from == null ? "(no valid sender)" : from);
            return Optional.empty();
        }
        List<MessageEvent.MediaRef> media = XmppFiles.oob(message);
        String text = body.map(Element::text).orElse("");
        String stripped = text.strip();
        if (media.isEmpty() && !stripped.isEmpty() && stripped.indexOf(' ') < 0 && stripped.indexOf('\n') < 0 && ownUpload.test(stripped)) {
            media = XmppFiles.ref(stripped).map(List::of).orElse(List.of()); // a link to the server's own upload service
        }
        if (media.stream().anyMatch(r -> r.ref().equals(stripped))) {
            text = ""; // the body is only the link of the attached file (what clients send with it)
        }
        if (body.isEmpty() && media.isEmpty()) {
            return Optional.empty(); // a chat state, a receipt, a subject change: nothing to answer
        }
        if (text.isBlank() && media.isEmpty()) {
            log.info("xmpp - a message from {} has an empty body; skipped", from);
            return Optional.empty();
        }
        Optional<MessageEvent> e = type.equals("groupchat") ? room(message, from, text) : direct(message, from, text);
        List<MessageEvent.MediaRef> files = media;
        return e.map(m -> files.isEmpty() ? m : new MessageEvent(m.eventId(), m.source(), m.text(), m.messageId(), m.replyToMessageId(),
                files, m.origin(), m.receivedAt(), m.options()));
    }

    private Optional<MessageEvent> direct(Element message, Jid from, String text) {
        String bare = from.bare();
        if (bare.equals(account.bare())) {
            return Optional.empty(); // Herald's own account (another client of it)
        }
        if (rooms.isRoom(bare)) {
            log.info("xmpp - a private message through room {} from {} is not answered (the room hides who sent it); write to "
                    + "the bot's JID directly", bare, from.resource().length() > 64 ? "an occupant" : from.resource());
            return Optional.empty();
        }
        if (from.local().isEmpty()) {
            log.debug("xmpp - passed over a message from the server {}", bare);
            return Optional.empty();
        }
        if (!usable(bare)) {
            log.warn("xmpp - a message from a JID Herald cannot use as an id ({} chars) was skipped", bare.length());
            return Optional.empty();
        }
        SessionSource source = new SessionSource(platform, bare, ChatType.DM, bare, from.local(), null, null);
        return Optional.of(MessageEvent.text(source, text, messageId(message, bare, account.bare()), clock.instant()));
    }

    private Optional<MessageEvent> room(Element message, Jid from, String text) {
        String room = from.bare();
        if (!rooms.isRoom(room) || !from.hasResource()) {
            return Optional.empty(); // not a room Herald is in, or the room itself speaking
        }
        if (from.resource().equals(rooms.nick())) {
            return Optional.empty(); // Herald's own message, reflected
        }
        if (message.child("delay", DELAY_NS).isPresent()) {
            return Optional.empty(); // history the room replays (Herald joins asking for none)
        }
        if (requireMention && !mention.matcher(text).find()) {
            return Optional.empty();
        }
        String user = rooms.realJid(room, from.resource()).orElse(null);
        if (user == null) {
            if (!allowAllUsers) {
                log.info("xmpp - a message from occupant {} in room {} was refused: the room does not show the bot real JIDs, so "
                        + "allowed_users cannot match it (make the room non-anonymous, or make the bot a moderator)",
                        from.resource().length() > 64 ? "(long nick)" : from.resource(), room);
                return Optional.empty();
            }
            user = from.toString();
        }
        if (!usable(room) || !usable(user)) {
            log.warn("xmpp - a message in room {} from a sender Herald cannot use as an id was skipped", room.length() > 64 ? "(long)" : room);
            return Optional.empty();
        }
        Matcher m = address.matcher(text);
        String asked = m.find() ? text.substring(m.end()) : text;
        SessionSource source = new SessionSource(platform, room, ChatType.GROUP, user, from.resource(), null, room);
        return Optional.of(MessageEvent.text(source, asked.strip(), messageId(message, room, room), clock.instant()));
    }

    /** The id the gateway deduplicates by: {@code chat/id}, the id from the most trusted source; null when there is none. */
    static String messageId(Element message, String chat, String trustedBy) {
        String id = message.children("stanza-id", SID_NS).stream().filter(s -> trustedBy.equals(s.attr("by"))).map(s -> s.attr("id"))
                .filter(XmppMessages::present).findFirst()
                .orElseGet(() -> message.child("origin-id", SID_NS).map(o -> o.attr("id")).filter(XmppMessages::present)
                        .orElse(message.attr("id")));
        if (!present(id)) {
            return null;
        }
        return chat + "/" + (id.length() <= MAX_ID && usable(id) ? id : "sha256-" + sha256(id).substring(0, 32));
    }

    /** True when {@code id} can be part of a session key and a stored id. */
    static boolean usable(String id) {
        return id != null && !id.isEmpty() && id.length() <= 512 && !id.contains("..") && !id.contains("\\")
                && id.chars().noneMatch(Character::isISOControl);
    }

    private static boolean present(String s) {
        return s != null && !s.isBlank();
    }

    static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
