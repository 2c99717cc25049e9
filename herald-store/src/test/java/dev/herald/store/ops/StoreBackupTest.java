package dev.herald.store.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.session.SessionEntry;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A backup of a SQLite store that is being written: a complete, consistent, private copy Herald opens as it is. */
class StoreBackupTest {
    @TempDir
    Path dir;
    final MutableClock clock = MutableClock.atNoon();

    @Test
    void backup_ofAStoreBeingWritten_isAConsistentCopyThatOpensAndHoldsTheConversation() throws Exception {
        Path db = dir.resolve("herald.db");
        Path backup = dir.resolve("backups/herald-backup.db");
        try (SqliteStorage live = SqliteStorage.open(db, clock)) {
            SessionEntry lane = Conversation.write(live, "alice", "what is in notes.txt?", "Two lines.", clock);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger written = new AtomicInteger();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    live.transcripts().append(lane.sessionId(), TranscriptRow.user("busy " + (written.get() + 1), clock.instant()));
                    written.incrementAndGet(); // counted once committed: the backup below starts after 20 commits
                }
            });
            while (written.get() < 20) {
                Thread.onSpinWait();
            }

            StoreBackup.Result result = StoreBackup.sqlite(db, backup);

            stop.set(true);
            writer.join();
            assertThat(result.file()).isEqualTo(backup);
            assertThat(result.sessions()).isEqualTo(1);
            assertThat(result.messages()).isGreaterThanOrEqualTo(4 + 20);
            assertThat(result.schemaVersion()).isEqualTo(SqliteStorage.schemaVersion());
            assertThat(Files.getPosixFilePermissions(backup)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.exists(dir.resolve("backups/herald-backup.db.partial"))).isFalse();

            try (SqliteStorage restored = SqliteStorage.open(backup, clock)) {
                List<TranscriptRow> rows = restored.transcripts().load(lane.sessionId());
                assertThat(rows).hasSize((int) result.messages());
                assertThat(rows.subList(0, 4)).extracting(TranscriptRow::content)
                        .containsExactly("what is in notes.txt?", null, "line one\nline \"two\"", "Two lines.");
                // a consistent snapshot: the busy rows it has are dense from the first, none missing in between
                assertThat(rows).extracting(TranscriptRow::seq).containsExactlyElementsOf(
                        java.util.stream.LongStream.rangeClosed(1, rows.size()).boxed().toList());
            }
        }
    }

    @Test
    void backup_ontoAnExistingFile_isRefusedAndTheFileIsUntouched() throws Exception {
        Path db = dir.resolve("herald.db");
        SqliteStorage.open(db, clock).close();
        Path existing = Files.writeString(dir.resolve("keep.db"), "precious");

        assertThatThrownBy(() -> StoreBackup.sqlite(db, existing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(existing.toString()).hasMessageContaining("exists already");
        assertThat(Files.readString(existing)).isEqualTo("precious");
    }

    @Test
    void backup_ofAMissingDatabase_namesIt() {
        Path missing = dir.resolve("nothing-here.db");

        assertThatThrownBy(() -> StoreBackup.sqlite(missing, dir.resolve("b.db")))
                .hasMessageContaining(missing.toString()).hasMessageContaining("does not exist");
        assertThat(Files.exists(dir.resolve("b.db"))).isFalse();
    }

    @Test
    void pgDumpCommand_namesHostPortUserAndDatabase_neverThePassword() {
        String cmd = StoreBackup.pgDumpCommand("jdbc:postgresql://db.internal:5433/herald?sslmode=require", "herald", Path.of("/backups/h.dump"));

        assertThat(cmd).isEqualTo("pg_dump --format=custom --file=/backups/h.dump --host=db.internal --port=5433 --username=herald --dbname=herald");
    }
}
