package dev.herald.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.core.platform.Platform;
import dev.herald.testkit.MutableClock;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteStorageTest {
    @TempDir
    Path dir;
    final MutableClock clock = MutableClock.atNoon();
    final SessionSource source = SessionSource.dm(Platform.of("loopback"), "1", "u1");

    @Test
    void open_defaults_useWalAndFullSync() {
        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            assertThat(storage.pragma("journal_mode")).isEqualTo("wal");
            assertThat(storage.pragma("synchronous")).isEqualTo("2");
            assertThat(storage.pragma("foreign_keys")).isEqualTo("1");
            assertThat(storage.describe()).contains("sqlite", RawSql.file(dir).toString(), "FULL");
        }
    }

    @Test
    void open_normalSync_isApplied() {
        SqliteOptions normal = SqliteOptions.defaults().withSynchronous(SqliteOptions.Synchronous.NORMAL);
        try (SqliteStorage storage = SqliteStorage.open(RawSql.file(dir), clock, normal)) {
            assertThat(storage.pragma("synchronous")).isEqualTo("1");
        }
    }

    @Test
    void close_twice_isHarmless() {
        SqliteStorage storage = RawSql.open(dir, clock);
        storage.close();
        storage.close();
    }

    @Test
    void callsAfterClose_failClearly() {
        SqliteStorage storage = RawSql.open(dir, clock);
        storage.close();
        SessionKey key = SessionKey.of(source);

        assertThatThrownBy(() -> storage.sessions().getOrCreate(key, source)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> storage.sessions().find(key)).isInstanceOf(StoreException.class).hasMessageContaining("closed");
    }

    @Test
    void close_afterWrites_leavesEverythingReadableByTheNextOpen() {
        SessionKey key = SessionKey.of(source);
        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            storage.sessions().getOrCreate(key, source);
        }
        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            assertThat(storage.sessions().find(key)).map(e -> e.origin()).isEqualTo(Optional.of(source));
        }
    }

    @Test
    void committedWrites_reachTheDatabaseFileWithoutWaitingForClose() throws Exception {
        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            long before = java.nio.file.Files.size(RawSql.file(dir));
            var lane = storage.sessions().getOrCreate(SessionKey.of(source), source);
            String filler = "x".repeat(4000);
            for (int i = 0; i < 200; i++) {
                storage.transcripts().append(lane.sessionId(), dev.herald.core.transcript.TranscriptRow.user(filler, clock.instant()));
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (java.nio.file.Files.size(RawSql.file(dir)) < before + 200 * 4000 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(java.nio.file.Files.size(RawSql.file(dir))).isGreaterThanOrEqualTo(before + 200 * 4000);
        }
    }

    @Test
    void options_outOfRange_areRejectedWithTheValue() {
        assertThatThrownBy(() -> new SqliteOptions(SqliteOptions.Synchronous.FULL, java.time.Duration.ofSeconds(1), 0, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 read connections");
    }
}
