package dev.herald.core.inbound;

import dev.herald.core.UserErrors;
import dev.herald.core.outbox.Outbox;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.session.Conversation;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.Omissions;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commands about the chat's conversations: {@code /title}, {@code /sessions}, {@code /resume}, {@code /retry} and
 * {@code /undo}. A conversation is one of the lane's transcripts (the current one, and those left by {@code /new} or
 * {@code /resume}); the store lists them and switches between them ({@code SessionStore.conversations}, {@code switchTo}).
 * What changes the transcript or the lane's current conversation runs while holding the lane (like a turn), so it is
 * refused while a turn runs or waits, and never races one. {@code /retry} and {@code /undo} never delete: they append a
 * marker that leaves the rows out of what the model sees ({@link Omissions}); the store and the admin keep them.
 */
final class ConversationCommands {
    private static final Logger log = LoggerFactory.getLogger(ConversationCommands.class);
    /** The longest title kept (the store's limit). */
    static final int MAX_TITLE = 200;
    /** Conversations numbered by /sessions (and reachable by number with /resume). */
    private static final int LISTED = 50;
    /** Conversations shown by one /sessions answer. */
    private static final int SHOWN = 15;
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final Storage storage;
    private final GatewayControl control;
    private final Outbox outbox;
    private final Clock clock;

    ConversationCommands(Storage storage, GatewayControl control, Outbox outbox, Clock clock) {
        this.storage = storage;
        this.control = control;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** A refusal for a title that is too long, or null when {@code title} may be kept. */
    static String badTitle(String title) {
        return title.length() > MAX_TITLE ? "A title is at most " + MAX_TITLE + " characters; this one has " + title.length() + "." : null;
    }

    /** {@code /title [name]}: shows or sets the current conversation's title. */
    String title(MessageEvent event, SessionKey key) {
        String wanted = event.commandArgs().strip();
        if (wanted.isEmpty()) {
            String current = storage.sessions().find(key).map(SessionEntry::title).orElse(null);
            return current == null ? "This conversation has no title yet. Name it with /title <name>."
                    : "This conversation is called \u201c" + current + "\u201d. Rename it with /title <name>.";
        }
        String refusal = badTitle(wanted);
        if (refusal != null) {
            return refusal;
        }
        storage.sessions().getOrCreate(key, event.source());
        storage.sessions().rename(key, wanted);
        log.info("gateway - {} named its conversation ({} characters)", key, wanted.length());
        return "\ud83c\udff7 This conversation is now called \u201c" + wanted + "\u201d.";
    }

    /** {@code /sessions [words]}: the lane's conversations, numbered, the current one first. */
    String list(SessionKey key, String args) {
        List<Conversation> all = listed(key);
        if (all.isEmpty()) {
            return "No conversations in this chat yet; your first message starts one.";
        }
        List<String> words = words(args);
        StringBuilder sb = new StringBuilder(words.isEmpty() ? "Your conversations in this chat:\n\n"
                : "Your conversations in this chat matching \u201c" + args.strip() + "\u201d:\n\n");
        int shown = 0;
        for (int i = 0; i < all.size() && shown < SHOWN; i++) {
            Conversation c = all.get(i);
            if (!matches(c, words)) {
                continue;
            }
            shown++;
            sb.append(i + 1).append(". ").append(name(c)).append(" \u2014 ").append(DAY.format(c.activeAt())).append(", ")
                    .append(c.messages()).append(c.messages() == 1 ? " message" : " messages")
                    .append(c.current() ? " (current)" : "").append('\n');
        }
        if (shown == 0) {
            return "No conversation in this chat matches \u201c" + args.strip() + "\u201d. Send /sessions for all of them.";
        }
        return sb.append("\nGo back to one with /resume <number>; name this one with /title <name>.").toString();
    }

    /** {@code /resume <n|title>}: makes that conversation the lane's current one, holding the lane. */
    String resume(MessageEvent event, SessionKey key) {
        String wanted = event.commandArgs().strip();
        if (wanted.isEmpty()) {
            return "Usage: /resume <number or title>. Send /sessions for the list.";
        }
        List<Conversation> all = listed(key);
        Choice choice = choose(all, wanted);
        if (choice.refusal() != null) {
            return choice.refusal();
        }
        Conversation chosen = choice.conversation();
        if (chosen.current()) {
            return "\u201c" + name(chosen) + "\u201d is already this chat's conversation.";
        }
        boolean started = control.runInLane(key, () -> {
            Optional<SessionEntry> switched = storage.sessions().switchTo(key, chosen.sessionId());
            String msg = switched.isEmpty() ? "That conversation is no longer there. Send /sessions for the list."
                    : "\u25b6\ufe0f Back to \u201c" + name(chosen) + "\u201d (" + chosen.messages() + " messages, last "
                            + DAY.format(chosen.activeAt()) + " UTC). Your next message continues it; the one you left stays in /sessions.";
            reply(event, msg);
        });
        return started ? null : busy("/resume");
    }

    /** {@code /retry}: the last user message again as a new turn; its old exchange is left out of what the model sees. */
    String retry(MessageEvent event, SessionKey key) {
        boolean started = control.runInLane(key, () -> {
            Optional<Exchange> last = lastExchange(key);
            if (last.isEmpty()) {
                reply(event, "Nothing to retry yet: this conversation has no message of yours.");
                return;
            }
            Exchange x = last.get();
            storage.transcripts().append(x.sessionId(), Omissions.marker(x.from().seq(), x.to(), Omissions.Reason.REPLACED, clock.instant()));
            reply(event, "\ud83d\udd01 Asking again: \u201c" + shorten(x.from().content(), 80) + "\u201d");
            MessageEvent again = new MessageEvent(EventIds.next(), event.source(), x.from().content() == null ? "" : x.from().content(),
                    null, event.messageId(), x.from().attachments(), MessageEvent.Origin.USER, clock.instant());
            String refused = switch (control.enqueue(again)) {
                case ACCEPTED, DUPLICATE -> null;
                case REJECTED_STOPPING -> "The gateway is stopping; send /retry again once it is back.";
                case REJECTED_UNAVAILABLE -> UserErrors.storeUnavailable();
                default -> "The message could not be asked again.";
            };
            log.info("gateway - /retry on {}: rows {}-{} of {} replaced{}", key, x.from().seq(), x.to(), x.sessionId(),
                    refused == null ? "" : " (the new turn was refused: " + refused + ")");
            if (refused != null) {
                reply(event, refused);
            }
        });
        return started ? null : busy("/retry");
    }

    /** {@code /undo}: the last exchange is left out of what the model sees (the store keeps it). */
    String undo(MessageEvent event, SessionKey key) {
        boolean started = control.runInLane(key, () -> {
            Optional<Exchange> last = lastExchange(key);
            if (last.isEmpty()) {
                reply(event, "Nothing to undo: this conversation has no message of yours left.");
                return;
            }
            Exchange x = last.get();
            storage.transcripts().append(x.sessionId(), Omissions.marker(x.from().seq(), x.to(), Omissions.Reason.UNDONE, clock.instant()));
            log.info("gateway - /undo on {}: rows {}-{} of {} left out", key, x.from().seq(), x.to(), x.sessionId());
            reply(event, "\u21a9\ufe0f Undone: \u201c" + shorten(x.from().content(), 80)
                    + "\u201d and its answer are left out of the conversation (the record keeps them).");
        });
        return started ? null : busy("/undo");
    }

    private static String busy(String command) {
        return "A turn is running in this chat; send " + command + " again when it has finished (or /stop it).";
    }

    /** The lane's last user message the model still sees and the rows after it, in its current transcript. */
    private Optional<Exchange> lastExchange(SessionKey key) {
        Optional<SessionEntry> entry = storage.sessions().find(key);
        if (entry.isEmpty() || entry.get().suspended()) {
            return Optional.empty(); // a suspended lane's next message starts fresh: nothing of it is asked again
        }
        String sessionId = storage.transcripts().compressionTip(entry.get().sessionId());
        List<TranscriptRow> rows = storage.transcripts().load(sessionId);
        List<Omissions.Range> omitted = Omissions.of(rows);
        for (int i = rows.size() - 1; i >= 0; i--) {
            TranscriptRow row = rows.get(i);
            boolean steering = row.content() != null && row.content().startsWith(dev.herald.core.lanes.Steering.MARK); // part of its turn's exchange
            if (row.role() == Role.USER && row.seq() > 0 && !Omissions.omitted(row, omitted) && !steering
                    && (row.content() != null && !row.content().isBlank() || !row.attachments().isEmpty())) {
                return Optional.of(new Exchange(sessionId, row, rows.getLast().seq()));
            }
        }
        return Optional.empty();
    }

    /** A user row and the last seq of its transcript. */
    private record Exchange(String sessionId, TranscriptRow from, long to) {
    }

    /** What /resume chose, or why not. */
    private record Choice(Conversation conversation, String refusal) {
    }

    private static Choice choose(List<Conversation> all, String wanted) {
        if (all.isEmpty()) {
            return new Choice(null, "No conversations in this chat yet; your first message starts one.");
        }
        if (wanted.matches("\\d{1,6}")) {
            int n = Integer.parseInt(wanted);
            if (n < 1 || n > all.size()) {
                return new Choice(null, "There is no conversation " + n + "; /sessions lists 1 to " + all.size() + ".");
            }
            return new Choice(all.get(n - 1), null);
        }
        List<Integer> exact = new ArrayList<>();
        List<Integer> partial = new ArrayList<>();
        List<String> words = words(wanted);
        for (int i = 0; i < all.size(); i++) {
            Conversation c = all.get(i);
            if (c.title() != null && c.title().equalsIgnoreCase(wanted)) {
                exact.add(i);
            } else if (matches(c, words)) {
                partial.add(i);
            }
        }
        List<Integer> found = exact.isEmpty() ? partial : exact;
        if (found.size() == 1) {
            return new Choice(all.get(found.getFirst()), null);
        }
        if (found.isEmpty()) {
            return new Choice(null, "No conversation in this chat is called \u201c" + shorten(wanted, 60)
                    + "\u201d. Send /sessions for the list.");
        }
        StringBuilder numbers = new StringBuilder();
        found.stream().limit(10).forEach(i -> numbers.append(numbers.isEmpty() ? "" : ", ").append(i + 1));
        return new Choice(null, "Several conversations match \u201c" + shorten(wanted, 60) + "\u201d (" + numbers
                + "). Send /resume <number>.");
    }

    /** The lane's conversations worth listing: the current one, and the others that hold a message or a title. */
    private List<Conversation> listed(SessionKey key) {
        return storage.sessions().conversations(key, LISTED).stream()
                .filter(c -> c.current() || c.messages() > 0 || c.title() != null).toList();
    }

    /** The conversation's title, else the start of its first message. */
    static String name(Conversation c) {
        if (c.title() != null) {
            return c.title();
        }
        if (c.firstMessage() != null && !c.firstMessage().isBlank()) {
            return shorten(c.firstMessage().strip().lines().findFirst().orElse(""), 40);
        }
        return "(no messages yet)";
    }

    private static boolean matches(Conversation c, List<String> words) {
        String text = ((c.title() == null ? "" : c.title()) + "\n" + (c.firstMessage() == null ? "" : c.firstMessage()))
                .toLowerCase(Locale.ROOT);
        return words.stream().allMatch(text::contains);
    }

    private static List<String> words(String args) {
        String s = args == null ? "" : args.strip().toLowerCase(Locale.ROOT);
        return s.isEmpty() ? List.of() : List.of(s.split("\\s+"));
    }

    static String shorten(String s, int max) {
        if (s == null) {
            return "";
        }
        String one = s.strip().replaceAll("\\s+", " ");
        return one.length() <= max ? one : one.substring(0, max - 1) + "\u2026";
    }

    private void reply(MessageEvent event, String text) {
        outbox.send(event.source().platform(), event.source().target(), text, MessageKind.COMMAND_RESPONSE, event.messageId(),
                event.eventId());
    }
}
