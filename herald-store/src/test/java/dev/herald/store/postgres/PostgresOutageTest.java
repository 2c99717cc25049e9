package dev.herald.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL server stopped and started again (same port, same data): a store call made meanwhile waits and
 * completes once it is back, the store says it cannot write while it is gone, and it comes back by itself.
 */
class PostgresOutageTest {
    @TempDir
    Path dir;
    final MutableClock clock = MutableClock.atNoon();
    final SessionSource source = SessionSource.dm(Platform.of("loopback"), "1", "u1");
    StoppablePostgres pg;

    @AfterEach
    void tearDown() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void write_duringAnOutage_waitsForTheServer_andCommitsOnceItIsBack() throws Exception {
        pg = StoppablePostgres.start(dir);
        try (PostgresStorage store = PostgresStorage.open(pg.options().withOutageWait(Duration.ofSeconds(60)), clock)) {
            SessionEntry lane = store.sessions().getOrCreate(SessionKey.of(source), source);
            pg.stop();

            CompletableFuture<TranscriptRow> waiting = CompletableFuture.supplyAsync(
                    () -> store.transcripts().append(lane.sessionId(), TranscriptRow.user("during", clock.instant())),
                    r -> Thread.ofVirtual().start(r));
            await().atMost(Duration.ofSeconds(20)).until(() -> !store.health().writable());
            assertThat(store.health().reason()).isEqualTo("the database cannot be reached");
            assertThat(store.health().problem()).contains(store.describe()).doesNotContain("jdbc:");
            assertThat(waiting).isNotDone();
            pg.start();

            assertThat(waiting.get(30, TimeUnit.SECONDS).seq()).isEqualTo(1);
            assertThat(store.transcripts().load(lane.sessionId())).extracting(TranscriptRow::content).containsExactly("during");
            await().atMost(Duration.ofSeconds(10)).until(() -> store.health().writable());
        }
    }

    @Test
    void idleStore_comesBackByItself_whenTheServerIsBack() {
        pg = StoppablePostgres.start(dir);
        try (PostgresStorage store = PostgresStorage.open(pg.options().withOutageWait(Duration.ZERO), clock)) {
            store.sessions().getOrCreate(SessionKey.of(source), source);
            pg.stop();

            assertThatThrownBy(() -> store.sessions().find(SessionKey.of(source)))
                    .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.outage()).isTrue());
            assertThat(store.health().writable()).isFalse();
            pg.start();

            await().atMost(Duration.ofSeconds(20)).until(() -> store.health().writable()); // the probe, with no call made
            assertThat(store.sessions().find(SessionKey.of(source))).isPresent();
        }
    }
}
