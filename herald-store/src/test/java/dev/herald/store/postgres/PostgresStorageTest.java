package dev.herald.store.postgres;

import dev.herald.store.contract.Together;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import dev.herald.testkit.MutableClock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What is particular to the PostgreSQL store: its lifecycle, and several stores (nodes) on one database. */
class PostgresStorageTest {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    final MutableClock clock = MutableClock.atNoon();
    final SessionSource source = SessionSource.dm(Platform.of("loopback"), "1", "u1");

    @Test
    void describe_namesTheDatabaseWithoutCredentials() {
        try (PostgresStorage storage = PostgresStorage.open(db.options(), clock)) {
            assertThat(storage.describe()).isEqualTo("postgresql localhost:" + PostgresTestServer.server().getPort() + "/" + db.name());
        }
    }

    @Test
    void close_twice_isHarmless() {
        PostgresStorage storage = PostgresStorage.open(db.options(), clock);
        storage.close();
        storage.close();
    }

    @Test
    void callsAfterClose_failClearlyNamingTheSubject() {
        PostgresStorage storage = PostgresStorage.open(db.options(), clock);
        storage.close();
        SessionKey key = SessionKey.of(source);

        assertThatThrownBy(() -> storage.sessions().getOrCreate(key, source)).isInstanceOf(StoreException.class)
                .hasMessageContaining("closed").hasMessageContaining(key.value());
        assertThatThrownBy(() -> storage.sessions().find(key)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
    }

    @Test
    void interruptedCaller_stillGetsTheCommittedResult_andKeepsItsFlag() throws Exception {
        try (PostgresStorage storage = PostgresStorage.open(db.options(), clock);
                ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Boolean> result = callers.submit(() -> {
                Thread.currentThread().interrupt();
                SessionEntry lane = storage.sessions().getOrCreate(SessionKey.of(source), source);
                return lane != null && Thread.currentThread().isInterrupted();
            });

            assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(storage.sessions().count()).isEqualTo(1);
        }
    }

    @Test
    void sqlFailure_isAStoreExceptionNamingTheSubject() {
        try (PostgresStorage storage = PostgresStorage.open(db.options(), clock)) {
            db.update("ALTER TABLE turns RENAME TO turns_gone");

            assertThatThrownBy(() -> storage.turns().find(42)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("turn 42").hasMessageContaining(storage.describe());
        }
    }

    @Test
    void twoNodes_getOrCreateOfTheSameLanes_createOneSessionPerLane() throws Exception {
        try (PostgresStorage a = PostgresStorage.open(db.options(), clock); PostgresStorage b = PostgresStorage.open(db.options(), clock)) {
            List<SessionEntry> entries = Together.run(32, i -> {
                SessionSource s = SessionSource.dm(Platform.of("loopback"), "chat-" + (i % 3), "u");
                return (i % 2 == 0 ? a : b).sessions().getOrCreate(SessionKey.of(s), s);
            });

            Set<String> ids = new HashSet<>();
            entries.forEach(e -> ids.add(e.key() + " " + e.sessionId()));
            assertThat(ids).hasSize(3);
            assertThat(a.sessions().count()).isEqualTo(3);
            assertThat(db.text("SELECT COUNT(*) FROM transcript_sessions")).as("no orphan transcripts from lost races").isEqualTo("3");
        }
    }

    @Test
    void twoNodes_startingTurnsOfOneLane_exactlyOneRuns() throws Exception {
        try (PostgresStorage a = PostgresStorage.open(db.options(), clock); PostgresStorage b = PostgresStorage.open(db.options(), clock)) {
            SessionEntry lane = a.sessions().getOrCreate(SessionKey.of(source), source);
            List<TurnRecord> queued = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                queued.add(a.turns().receive(lane.key(), MessageEvent.text(source, "m" + i, "m" + i, clock.instant())).orElseThrow());
            }

            List<Optional<TurnRecord>> started = Together.run(16, i -> new Turns((i % 2 == 0 ? a : b).turns())
                    .start(queued.get(i).id(), lane.sessionId(), TranscriptRow.user("m" + i, clock.instant())));

            assertThat(started.stream().filter(Optional::isPresent).count()).isEqualTo(1);
            assertThat(b.turns().inState(TurnState.RUNNING, 10)).hasSize(1);
            assertThat(b.transcripts().rowCount(lane.sessionId())).isEqualTo(1);
        }
    }

    @Test
    void twoNodes_appendingToOneTranscript_keepSeqDense() throws Exception {
        try (PostgresStorage a = PostgresStorage.open(db.options(), clock); PostgresStorage b = PostgresStorage.open(db.options(), clock)) {
            String session = a.sessions().getOrCreate(SessionKey.of(source), source).sessionId();

            Together.run(16, i -> {
                for (int n = 0; n < 5; n++) {
                    (i % 2 == 0 ? a : b).transcripts().append(session, TranscriptRow.user(i + "-" + n, clock.instant()));
                }
                return null;
            });

            List<TranscriptRow> rows = a.transcripts().load(session);
            assertThat(rows).hasSize(80);
            for (int r = 0; r < rows.size(); r++) {
                assertThat(rows.get(r).seq()).isEqualTo(r + 1);
            }
        }
    }

    @Test
    void twoNodes_receivingTheSameMessage_storeItOnce() throws Exception {
        try (PostgresStorage a = PostgresStorage.open(db.options(), clock); PostgresStorage b = PostgresStorage.open(db.options(), clock)) {
            List<Optional<TurnRecord>> results = Together.run(16, i -> (i % 2 == 0 ? a : b).turns()
                    .receive(SessionKey.of(source), MessageEvent.text(source, "dup", "m-1", clock.instant())));

            assertThat(results.stream().filter(Optional::isPresent).count()).isEqualTo(1);
        }
    }
}
