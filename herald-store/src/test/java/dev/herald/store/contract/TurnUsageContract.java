package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.SenderUsage;
import dev.herald.core.turn.SenderUsage.Sender;
import dev.herald.core.turn.TurnRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link dev.herald.core.turn.TurnStore#usage}, for every store: each group counts its own senders' started turns in the window. */
public abstract class TurnUsageContract extends StorageContract {

    private static SessionSource source(dev.herald.core.platform.Platform platform, String chat, String user) {
        return new SessionSource(platform, chat, ChatType.DM, user, null, null, null);
    }

    /** A turn of {@code source} received now, started and completed with the given tokens. */
    private void turn(SessionSource source, long in, long out) {
        SessionEntry lane = sessions().getOrCreate(keyOf(source), source);
        TurnRecord turn = turns().receive(lane.key(), MessageEvent.text(source, "hello", null, clock.instant())).orElseThrow();
        turns().start(turn.id(), lane.sessionId(), TranscriptRow.user("hello", clock.instant())).orElseThrow();
        turnStore().addUsage(turn.id(), in, out);
        assertThat(turns().complete(turn.id(), "done")).isTrue();
    }

    @Test
    void usage_addsUpEachGroupsOwnSenders_today_andInTheWindow_startedTurnsOnly() {
        Instant now = clock.instant();
        clock.set(now.minus(Duration.ofDays(40)));
        turn(source(CHAT, "c1", "u:ann"), 1_000, 1_000); // before the window
        clock.set(now.minus(Duration.ofDays(2)));
        turn(source(CHAT, "c1", "u:ann"), 100, 10);
        clock.set(now);
        turn(source(CHAT, "c1", "u:ann"), 20, 2);
        turn(source(OTHER, "k1", "u:ann"), 3, 1); // ann through another platform
        turn(source(CHAT, "c2", "u:bob"), 7, 7);
        turn(source(CHAT, "c3", "u:annex"), 5_000, 5_000); // another person whose id starts the same
        SessionSource waiting = source(CHAT, "c4", "u:ann");
        turns().receive(keyOf(waiting), MessageEvent.text(waiting, "not started", null, clock.instant())).orElseThrow();

        Map<String, List<Sender>> groups = new LinkedHashMap<>();
        groups.put("ann", List.of(new Sender(CHAT.id(), "u:ann"), new Sender(OTHER.id(), "u:ann")));
        groups.put("bob", List.of(new Sender(CHAT.id(), "u:bob")));
        groups.put("cy", List.of(new Sender(CHAT.id(), "u:cy")));
        Instant midnight = now.atZone(ZoneOffset.UTC).toLocalDate().atStartOfDay(ZoneOffset.UTC).toInstant();

        Map<String, SenderUsage> usage = turnStore().usage(groups, midnight, now.minus(Duration.ofDays(30)));

        assertThat(usage.get("ann")).isEqualTo(new SenderUsage(2, 23, 3, 3, 123, 13));
        assertThat(usage.get("bob")).isEqualTo(new SenderUsage(1, 7, 7, 1, 7, 7));
        assertThat(usage.get("cy")).isEqualTo(SenderUsage.NONE);
        assertThat(usage).containsOnlyKeys("ann", "bob", "cy");
    }

    @Test
    void usage_ofMoreSendersThanOneStatementTakes_countsThemAll() {
        List<Sender> many = new ArrayList<>();
        for (int i = 0; i < dev.herald.core.turn.TurnStore.USAGE_SENDERS + 5; i++) {
            many.add(new Sender(CHAT.id(), "u:p" + i));
        }
        turn(source(CHAT, "c1", "u:p0"), 1, 1);
        turn(source(CHAT, "c2", "u:p" + (dev.herald.core.turn.TurnStore.USAGE_SENDERS + 4)), 2, 2);

        Map<String, SenderUsage> usage = turnStore().usage(Map.of("all", many), clock.instant().minus(Duration.ofHours(1)),
                clock.instant().minus(Duration.ofDays(30)));

        assertThat(usage.get("all")).isEqualTo(new SenderUsage(2, 3, 3, 2, 3, 3));
        assertThat(turnStore().usage(Map.of(), clock.instant(), clock.instant())).isEmpty();
    }
}
