package dev.herald.core.platform;

import dev.herald.core.agent.TurnOptions;
import dev.herald.core.session.SessionSource;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One inbound message, normalised by its adapter.
 *
 * @param eventId          Herald's id for this event (unique; replies carry it as their correlation id)
 * @param source           who wrote, where
 * @param text             the text, possibly empty (an automatic resume turn has none)
 * @param messageId        the platform's id of the message, used for durable dedupe: it must be unique
 *                         across the whole platform (an adapter whose ids are unique only per chat
 *                         prefixes the chat id, e.g. {@code 12345:678}); null when the platform has none
 *                         (such events are never deduplicated)
 * @param replyToMessageId the platform message this one answers, or null
 * @param media            references to attached media (urls or platform file ids); empty when none
 * @param origin           where the event comes from inside Herald; internal events still carry
 *                         their owner's identity and pass authorization like any other
 * @param receivedAt       when the gateway received it
 * @param options          what the sender asked of its turn beyond the text (a model profile, model parameters: the API
 *                         server's request fields); {@link TurnOptions#NONE} for most. The gateway keeps them in this
 *                         node's memory until the turn starts, so a platform that sets them runs its turns where
 *                         received ({@link Capabilities.Delivery#turnsRunWhereReceived()}); a turn run after a restart
 *                         runs without them
 */
public record MessageEvent(
        String eventId,
        SessionSource source,
        String text,
        String messageId,
        String replyToMessageId,
        List<MediaRef> media,
        Origin origin,
        Instant receivedAt,
        TurnOptions options) {

    /** Where an event comes from. */
    public enum Origin {
        /** A person wrote it on a platform. */
        USER,
        /** The gateway made it to resume an interrupted session (spec F1). */
        RESUME,
        /** A scheduled job's occurrence, from the job's chat and user ({@code dev.herald.core.schedule}). */
        SCHEDULE
    }

    /**
     * An attachment reference; the bytes stay on the platform until the turn fetches them. Every field but the reference
     * is what the sender's platform claimed, never trusted: the name is sanitised and the type and size checked when the
     * file is fetched.
     *
     * @param kind     what the platform calls it ({@code photo}, {@code document}, {@code voice}, {@code attachment}, ...)
     * @param ref      the platform's file id or URL, for its {@link MediaFetcher}
     * @param mimeType the media type the platform declared, or null
     * @param name     the file name the sender gave, or null
     * @param size     the size in bytes the platform declared, or -1 when unknown
     */
    public record MediaRef(String kind, String ref, String mimeType, String name, long size) {
        public MediaRef {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(ref, "ref");
            size = size < 0 ? -1 : size;
        }

        /** A reference with no name and no declared size. */
        public MediaRef(String kind, String ref, String mimeType) {
            this(kind, ref, mimeType, null, -1);
        }
    }

    public MessageEvent {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(receivedAt, "receivedAt");
        text = text == null ? "" : text;
        media = media == null ? List.of() : List.copyOf(media);
        options = options == null ? TurnOptions.NONE : options;
    }

    /** An event that asks nothing of its turn beyond its text ({@link TurnOptions#NONE}). */
    public MessageEvent(String eventId, SessionSource source, String text, String messageId, String replyToMessageId,
            List<MediaRef> media, Origin origin, Instant receivedAt) {
        this(eventId, source, text, messageId, replyToMessageId, media, origin, receivedAt, TurnOptions.NONE);
    }

    /** This event asking {@code asked} of its turn. */
    public MessageEvent withOptions(TurnOptions asked) {
        return new MessageEvent(eventId, source, text, messageId, replyToMessageId, media, origin, receivedAt, asked);
    }

    /** A plain text message from a user. */
    public static MessageEvent text(SessionSource source, String text, String messageId, Instant at) {
        return new MessageEvent(EventIds.next(), source, text, messageId, null, List.of(), Origin.USER, at);
    }

    /** The synthetic empty turn that resumes an interrupted session for its owner. */
    public static MessageEvent resume(SessionSource source, Instant at) {
        return resume(source, at, null);
    }

    /**
     * The synthetic empty turn that resumes an interrupted session, answering {@code continuedMessageId}: the
     * platform message of the user whose turn was cut off (null when unknown), so the resumed answer replies
     * to (quotes, threads under) it as the answer to that message would have.
     */
    public static MessageEvent resume(SessionSource source, Instant at, String continuedMessageId) {
        return new MessageEvent(EventIds.next(), source, "", null, continuedMessageId, List.of(), Origin.RESUME, at);
    }

    /**
     * The platform message a reply to this event answers: the message itself, for a resume turn the message
     * of the turn it continues, for a scheduled job's run none (its id names the occurrence, not a message).
     */
    public String answersMessageId() {
        return switch (origin) {
            case USER -> messageId;
            case RESUME -> replyToMessageId;
            case SCHEDULE -> null;
        };
    }

    /** {@code text}, then one {@code [attachment: kind (type), ref ...]} line per attachment. */
    public static String withAttachmentLines(String text, List<MediaRef> media) {
        StringBuilder sb = new StringBuilder(text == null ? "" : text);
        for (MediaRef m : media) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append("[attachment: ").append(m.kind());
            if (m.mimeType() != null && !m.mimeType().isBlank()) {
                sb.append(" (").append(m.mimeType()).append(')');
            }
            sb.append(", ref ").append(m.ref()).append(']');
        }
        return sb.toString();
    }

    /**
     * The attachments named in stored text: the inverse of {@link #textWithAttachments()}, line by line. Read only for a
     * user row stored before attachments were data (it has none of its own); a line a user typed in that exact form is
     * read as one too there, and the fetcher of the platform decides what it can fetch.
     */
    public static List<MediaRef> attachmentsIn(String text) {
        if (text == null || !text.contains("[attachment: ")) {
            return List.of();
        }
        List<MediaRef> out = new java.util.ArrayList<>();
        for (String line : text.split("\n")) {
            java.util.regex.Matcher m = ATTACHMENT_LINE.matcher(line);
            if (m.matches()) {
                out.add(new MediaRef(m.group(1), m.group(3), m.group(2)));
            }
        }
        return out;
    }

    private static final java.util.regex.Pattern ATTACHMENT_LINE =
            java.util.regex.Pattern.compile("\\[attachment: ([^\\s(,\\]]+)(?: \\(([^)]*)\\))?, ref (\\S+)\\]");

    public boolean internal() {
        return origin != Origin.USER;
    }

    /** True when the text is a slash command such as {@code /status}. */
    public boolean isCommand() {
        return command() != null;
    }

    /**
     * The command name without the slash, lower-cased, with a {@code @botname} suffix removed; null
     * when the text is not a command (including path-like text such as {@code /usr/bin}).
     */
    public String command() {
        String t = text.stripLeading();
        if (!t.startsWith("/") || t.length() < 2) {
            return null;
        }
        int end = 1;
        while (end < t.length() && !Character.isWhitespace(t.charAt(end))) {
            end++;
        }
        String name = t.substring(1, end);
        int at = name.indexOf('@');
        if (at >= 0) {
            name = name.substring(0, at);
        }
        if (name.isEmpty() || name.contains("/")) {
            return null;
        }
        return name.toLowerCase(Locale.ROOT);
    }

    /** Everything after the command name, stripped; empty when there is none. */
    public String commandArgs() {
        String t = text.stripLeading();
        int space = indexOfWhitespace(t);
        return space < 0 ? "" : t.substring(space).strip();
    }

    private static int indexOfWhitespace(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isWhitespace(s.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
