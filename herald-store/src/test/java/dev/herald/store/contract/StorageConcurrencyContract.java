package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Many virtual threads on the same and different lanes at once: the store must stay consistent. */
public abstract class StorageConcurrencyContract extends StorageContract {
    private static final int THREADS = 64;

    @Test
    void getOrCreate_sameAndDifferentKeysFromManyThreads_createsOneSessionPerKey() throws Exception {
        List<SessionEntry> entries = Together.run(THREADS, i -> {
            SessionSource source = dm("chat-" + (i % 4));
            return sessions().getOrCreate(keyOf(source), source);
        });

        ConcurrentHashMap<String, Set<String>> idsByKey = new ConcurrentHashMap<>();
        for (SessionEntry e : entries) {
            idsByKey.computeIfAbsent(e.key().value(), k -> new HashSet<>()).add(e.sessionId());
        }
        assertThat(idsByKey).hasSize(4);
        assertThat(idsByKey.values()).allSatisfy(ids -> assertThat(ids).hasSize(1));
        assertThat(sessions().count()).isEqualTo(4);
    }

    @Test
    void append_manyThreadsOnSameAndDifferentSessions_seqIsDenseAndNothingIsLost() throws Exception {
        int sessionsCount = 3;
        int perThread = 20;
        List<String> ids = new ArrayList<>();
        for (int s = 0; s < sessionsCount; s++) {
            ids.add(lane("s" + s).sessionId());
        }

        Together.run(THREADS, i -> {
            String session = ids.get(i % sessionsCount);
            for (int n = 0; n < perThread; n++) {
                transcripts().append(session, TranscriptRow.user(i + "-" + n, clock.instant()));
            }
            return null;
        });

        int rowsPerSession = THREADS / sessionsCount * perThread;
        for (int s = 0; s < sessionsCount; s++) {
            String session = ids.get(s);
            List<TranscriptRow> rows = transcripts().load(session);
            int expected = rowsPerSession + (s < THREADS % sessionsCount ? perThread : 0);
            assertThat(rows).hasSize(expected);
            for (int r = 0; r < rows.size(); r++) {
                assertThat(rows.get(r).seq()).isEqualTo(r + 1);
            }
            assertThat(rows).extracting(TranscriptRow::content).doesNotHaveDuplicates();
        }
    }

    @Test
    void start_manyTurnsOfOneLaneAtOnce_exactlyOneRuns() throws Exception {
        SessionEntry lane = lane("1");
        List<TurnRecord> queued = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            SessionSource source = dm("1");
            queued.add(turns().receive(lane.key(), MessageEvent.text(source, "m" + i, "m" + i, clock.instant())).orElseThrow());
        }

        List<Optional<TurnRecord>> results = Together.run(THREADS, i ->
                turns().start(queued.get(i).id(), lane.sessionId(), TranscriptRow.user("m" + i, clock.instant())));

        assertThat(results.stream().filter(Optional::isPresent).count()).isEqualTo(1);
        assertThat(turns().inState(TurnState.RUNNING, 100)).hasSize(1);
        assertThat(transcripts().rowCount(lane.sessionId())).isEqualTo(1);
    }

    @Test
    void start_oneTurnPerLaneOnManyLanes_allRun() throws Exception {
        List<TurnRecord> queued = new ArrayList<>();
        List<String> sessionIds = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            SessionEntry lane = lane("lane-" + i);
            sessionIds.add(lane.sessionId());
            queued.add(turns().receive(lane.key(), MessageEvent.text(dm("lane-" + i), "go", null, clock.instant())).orElseThrow());
        }

        List<Optional<TurnRecord>> results = Together.run(THREADS, i -> turns().start(queued.get(i).id(), sessionIds.get(i), null));

        assertThat(results).allMatch(Optional::isPresent);
    }

    @Test
    void receive_sameMessageFromManyThreads_isStoredOnce() throws Exception {
        SessionSource source = dm("1");

        List<Optional<TurnRecord>> results = Together.run(THREADS,
                i -> turns().receive(keyOf(source), MessageEvent.text(source, "dup", "m-1", clock.instant())));

        assertThat(results.stream().filter(Optional::isPresent).count()).isEqualTo(1);
    }
}
