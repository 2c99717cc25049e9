package dev.herald.core.inbound;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code /usage}: the model tokens of the chat's last answer, of its current conversation (the lane's counts, as
 * {@code /status} shows them) and of the sender's turns in this chat since midnight UTC, from what the store recorded
 * per turn. Herald knows no prices yet, so it shows tokens, not money.
 */
final class UsageCommand {
    /** Turns added up for a day at most (a chat with more shows a lower bound, and says so). */
    static final int DAY_LIMIT = 2_000;

    private final Storage storage;
    private final Turns turns;
    private final Clock clock;

    UsageCommand(Storage storage, Turns turns, Clock clock) {
        this.storage = storage;
        this.turns = turns;
        this.clock = clock;
    }

    String handle(MessageEvent event, SessionKey key) {
        if (!event.commandArgs().isBlank()) {
            return "Usage: /usage (no arguments): the tokens of the last answer, of this conversation and of today.";
        }
        Optional<SessionEntry> entry = storage.sessions().find(key);
        if (entry.isEmpty()) {
            return "No usage yet: this chat has no conversation. Your first message starts one.";
        }
        StringBuilder sb = new StringBuilder("Model tokens (in / out):\n");
        Optional<TurnRecord> last = turns.latestStarted(key);
        sb.append("Last answer: ").append(last.map(t -> tokens(t.inputTokens(), t.outputTokens())).orElse("none yet")).append('\n');
        sb.append("This conversation: ").append(tokens(entry.get().inputTokens(), entry.get().outputTokens())).append('\n');
        Instant midnight = LocalDate.now(clock.withZone(ZoneOffset.UTC)).atStartOfDay(ZoneOffset.UTC).toInstant();
        List<TurnRecord> today = turns.startedSince(key, midnight, DAY_LIMIT);
        String user = event.source().userId();
        long in = 0;
        long out = 0;
        int count = 0;
        for (TurnRecord t : today) {
            if (user == null || Objects.equals(user, t.source().userId())) {
                in += t.inputTokens();
                out += t.outputTokens();
                count++;
            }
        }
        sb.append("Today (UTC), your messages in this chat: ").append(tokens(in, out)).append(" over ").append(count)
                .append(count == 1 ? " turn" : " turns");
        if (today.size() >= DAY_LIMIT) {
            sb.append(" (the newest ").append(DAY_LIMIT).append(" turns only)");
        }
        return sb.toString();
    }

    private static String tokens(long in, long out) {
        return String.format(Locale.ROOT, "%,d / %,d", in, out);
    }
}
