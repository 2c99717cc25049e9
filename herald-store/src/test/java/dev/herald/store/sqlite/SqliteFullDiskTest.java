package dev.herald.store.sqlite;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk (a real SQLITE_FULL, from {@link FullDisk}) stops writes without breaking the store: the failed write is
 * rolled back, the store reports that it cannot write, and once space is free again writes work without a reopen.
 */
class SqliteFullDiskTest {
    @TempDir
    Path dir;
    final MutableClock clock = MutableClock.atNoon();
    final SessionSource source = SessionSource.dm(Platform.of("loopback"), "1", "u1");
    static final String BIG = "x".repeat(50_000); // needs new pages whatever the free room in the table's last page

    private SqliteStorage open(Duration outageWait) {
        return SqliteStorage.open(dir.resolve("herald.db"), clock, SqliteOptions.defaults().withOutageWait(outageWait));
    }

    @Test
    void write_onAFullDisk_failsAsAnOutage_andOnceSpaceIsFreeWritesWorkAgainWithoutAReopen() {
        try (SqliteStorage store = open(Duration.ZERO)) {
            SessionEntry lane = store.sessions().getOrCreate(SessionKey.of(source), source);
            FullDisk.fill(store);

            assertThatThrownBy(() -> store.transcripts().append(lane.sessionId(), TranscriptRow.user(BIG, clock.instant())))
                    .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.outage()).isTrue());
            assertThatThrownBy(() -> store.transcripts().append(lane.sessionId(), TranscriptRow.user(BIG, clock.instant())))
                    .as("the second write fails for the same reason, not with a dead statement")
                    .isInstanceOf(StoreException.class).hasMessageContaining("SQLITE_FULL").hasMessageNotContaining("not executing");
            assertThat(store.health().writable()).isFalse();
            assertThat(store.health().problem()).contains(dir.resolve("herald.db").toString(), "SQLITE_FULL", "full");
            assertThat(store.transcripts().load(lane.sessionId())).as("nothing of the failed writes is on disk").isEmpty();

            FullDisk.free(store);

            await().atMost(Duration.ofSeconds(10)).until(() -> store.health().writable());
            store.transcripts().append(lane.sessionId(), TranscriptRow.user(BIG, clock.instant()));
            store.transcripts().append(lane.sessionId(), TranscriptRow.user("small", clock.instant()));
            assertThat(store.transcripts().load(lane.sessionId())).extracting(TranscriptRow::content).containsExactly(BIG, "small");
        }
    }

    @Test
    void write_startedWhileTheDiskIsFull_waitsAndCommitsOnceWhenSpaceIsFreed() throws Exception {
        try (SqliteStorage store = open(Duration.ofSeconds(30))) {
            SessionEntry lane = store.sessions().getOrCreate(SessionKey.of(source), source);
            FullDisk.fill(store);

            CompletableFuture<TranscriptRow> waiting = CompletableFuture.supplyAsync(
                    () -> store.transcripts().append(lane.sessionId(), TranscriptRow.user(BIG, clock.instant())),
                    r -> Thread.ofVirtual().start(r));
            await().atMost(Duration.ofSeconds(10)).until(() -> !store.health().writable());
            assertThat(waiting).isNotDone();
            FullDisk.free(store);

            assertThat(waiting.get(15, java.util.concurrent.TimeUnit.SECONDS).seq()).isEqualTo(1);
            assertThat(store.transcripts().load(lane.sessionId())).hasSize(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.health().writable());
        }
    }

    @Test
    void deferredWrite_thatFailedOnAFullDisk_isKept_andCommitsBeforeTheCallersNextWrite() {
        try (SqliteStorage store = open(Duration.ofSeconds(30))) {
            SessionEntry lane = store.sessions().getOrCreate(SessionKey.of(source), source);
            FullDisk.fill(store);
            store.transcripts().appendSoon(lane.sessionId(), TranscriptRow.user(BIG, clock.instant()));
            await().atMost(Duration.ofSeconds(10)).until(() -> !store.health().writable());

            Thread.ofVirtual().start(() -> {
                await().atMost(Duration.ofSeconds(10)).until(() -> store.health().problem() != null);
                FullDisk.free(store);
            });
            store.transcripts().append(lane.sessionId(), TranscriptRow.user("after", clock.instant())); // the same caller

            assertThat(store.transcripts().load(lane.sessionId())).extracting(TranscriptRow::content).containsExactly(BIG, "after");
        }
    }

    @Test
    void deferredWrite_thatFailedOnAFullDisk_commitsOnceSpaceIsFree_withoutAnotherWriteOfItsCaller() throws Exception {
        try (SqliteStorage store = open(Duration.ofSeconds(30))) {
            SessionEntry lane = store.sessions().getOrCreate(SessionKey.of(source), source);
            FullDisk.fill(store);
            Thread.ofVirtual().start(() -> store.transcripts().appendSoon(lane.sessionId(), TranscriptRow.user(BIG, clock.instant())))
                    .join();
            await().atMost(Duration.ofSeconds(10)).until(() -> !store.health().writable());

            FullDisk.free(store);

            await().atMost(Duration.ofSeconds(10)).until(() -> store.transcripts().load(lane.sessionId()).size() == 1);
        }
    }

    @Test
    void freeSpace_underTheWarningThreshold_isAWarning_whileWritesStillWork() {
        try (SqliteStorage store = SqliteStorage.open(dir.resolve("herald.db"), clock,
                SqliteOptions.defaults().withLowSpaceWarning(Long.MAX_VALUE / 2))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> store.health().warning() != null);

            assertThat(store.health().writable()).isTrue();
            assertThat(store.health().warning()).contains("MiB free", "store.low_space_warning_mb", dir.toString());
        }
    }
}
