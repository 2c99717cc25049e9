package dev.herald.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.core.session.SuspendReason;
import dev.herald.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteMigrationsTest {
    @TempDir
    Path dir;
    final MutableClock clock = MutableClock.atNoon();

    @Test
    void open_emptyFile_appliesEverySchemaVersion() throws IOException {
        Files.createFile(RawSql.file(dir));

        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            assertThat(storage.sessions().count()).isZero();
        }

        assertThat(RawSql.text(dir, "SELECT MAX(version) FROM schema_version")).isEqualTo(String.valueOf(Migrations.latest()));
        assertThat(RawSql.text(dir, "SELECT COUNT(*) FROM schema_version")).isEqualTo(String.valueOf(Migrations.FILES.size()));
        assertThat(RawSql.text(dir, "SELECT name FROM sqlite_master WHERE name = 'turns_one_running_per_lane'")).isNotNull();
    }

    @Test
    void open_v17_movesTheMemoriesOfAnAccountsApiKeysToTheAccount_andLeavesOthersAlone() {
        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            storage.memories().add("api_server:u:ann", "prefers tea", null, dev.herald.core.memory.Memory.Status.ACTIVE, clock.instant());
            storage.memories().add("api_server:ann", "an API user, no account", null, dev.herald.core.memory.Memory.Status.ACTIVE,
                    clock.instant());
            storage.memories().add("telegram:7", "lives in Oslo", null, dev.herald.core.memory.Memory.Status.ACTIVE, clock.instant());
        }
        RawSql.update(dir, "UPDATE memories SET owner = 'api_server:u:ann' WHERE text = 'prefers tea'"); // as version 17 kept it
        RawSql.update(dir, "DROP TABLE identity_links");
        RawSql.update(dir, "DROP TABLE link_codes");
        RawSql.update(dir, "DELETE FROM schema_version WHERE version >= 18");

        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            assertThat(storage.memories().list("webchat:u:ann", true, 10)).extracting(dev.herald.core.memory.Memory::text)
                    .containsExactly("prefers tea");
            assertThat(storage.memories().list("api_server:u:ann", true, 10)).isEmpty();
            assertThat(storage.memories().list("api_server:ann", true, 10)).hasSize(1);
            assertThat(storage.memories().list("telegram:7", true, 10)).hasSize(1);
        }
    }

    @Test
    void open_missingFileInMissingDirectories_createsBoth() {
        Path file = dir.resolve("a/b/herald.db");

        try (SqliteStorage storage = SqliteStorage.open(file, clock)) {
            assertThat(storage.file()).isEqualTo(file.toAbsolutePath());
        }

        assertThat(file).exists();
    }

    @Test
    void open_currentSchema_appliesNothingTwice() {
        RawSql.open(dir, clock).close();
        RawSql.open(dir, clock).close();

        assertThat(RawSql.text(dir, "SELECT COUNT(*) FROM schema_version")).isEqualTo(String.valueOf(Migrations.FILES.size()));
    }

    @Test
    void open_databaseOfANewerHerald_isRefusedNamingFileAndBothVersions() {
        RawSql.open(dir, clock).close();
        int newer = Migrations.latest() + 6;
        RawSql.update(dir, "INSERT INTO schema_version (version, description, applied_at) VALUES (?, 'from the future', 0)", newer);

        assertThatThrownBy(() -> RawSql.open(dir, clock))
                .isInstanceOf(StoreException.class)
                .hasMessage("store - " + RawSql.file(dir).toAbsolutePath() + " was written by schema version " + newer
                        + ", this Herald knows up to " + Migrations.latest() + "; upgrade Herald or restore a backup");
        assertThat(RawSql.text(dir, "SELECT MAX(version) FROM schema_version")).isEqualTo(String.valueOf(newer));
    }

    @Test
    void open_fileThatIsNoDatabase_failsNamingTheFile() throws IOException {
        Files.writeString(RawSql.file(dir), "this is not a database, just a text file that is long enough to have a header page");

        assertThatThrownBy(() -> RawSql.open(dir, clock))
                .isInstanceOf(StoreException.class).hasMessageContaining(RawSql.file(dir).toString()).hasMessageContaining("backup");
    }

    @Test
    void open_laneSuspendedBeforeReasonsWereRecorded_readsAsUnrecordedAndStaysSuspended() {
        SessionKey key;
        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            key = storage.sessions().getOrCreate(
                    new SessionKey("agent:main:loopback:dm:old"), SessionSource.dm(Platform.of("loopback"), "old", "u-old")).key();
        }
        // the database as version 2 left it: no reason, delivery, title or hidden columns, no scheduled jobs, a suspended lane
        RawSql.update(dir, "UPDATE sessions SET suspended = 1 WHERE session_key = ?", key.value());
        RawSql.update(dir, "ALTER TABLE sessions DROP COLUMN suspend_reason");
        RawSql.update(dir, "ALTER TABLE sessions DROP COLUMN suspended_at");
        RawSql.update(dir, "ALTER TABLE sessions DROP COLUMN title");
        RawSql.update(dir, "ALTER TABLE sessions DROP COLUMN hidden_at");
        RawSql.update(dir, "DROP INDEX turns_by_lane");
        RawSql.update(dir, "DROP INDEX sessions_by_owner");
        RawSql.update(dir, "ALTER TABLE sessions DROP COLUMN owner_node");
        RawSql.update(dir, "DROP TABLE nodes");
        RawSql.update(dir, "DROP TABLE platform_leases");
        RawSql.update(dir, "DROP TABLE platform_state");
        for (String column : new String[] {"parts_delivered", "delivery_attempts", "delivery_error", "input_tokens", "output_tokens", "error",
                "sending_part", "part_message_ids", "owner_node", "attachments", "reply_files"}) {
            RawSql.update(dir, "ALTER TABLE turns DROP COLUMN " + column);
        }
        RawSql.update(dir, "ALTER TABLE messages DROP COLUMN attachments");
        RawSql.update(dir, "DROP TABLE session_models");
        RawSql.update(dir, "DROP TABLE chat_preferences");
        RawSql.update(dir, "DROP TABLE web_users");
        RawSql.update(dir, "DROP TABLE api_keys");
        RawSql.update(dir, "DROP TABLE memories");
        RawSql.update(dir, "DROP TABLE identity_links");
        RawSql.update(dir, "DROP TABLE link_codes");
        RawSql.update(dir, "ALTER TABLE transcript_sessions DROP COLUMN title");
        RawSql.update(dir, "DROP TABLE schedule_runs");
        RawSql.update(dir, "DROP TABLE schedule_jobs");
        RawSql.update(dir, "DELETE FROM schema_version WHERE version >= 3");

        try (SqliteStorage storage = RawSql.open(dir, clock)) {
            SessionEntry entry = storage.sessions().find(key).orElseThrow();
            assertThat(entry.suspended()).isTrue();
            assertThat(entry.suspendReason()).isEqualTo(SuspendReason.UNRECORDED);
            assertThat(entry.suspendedAt()).isNull();
            assertThat(entry.title()).isNull();
            assertThat(entry.hidden()).isFalse();
        }
    }

    @Test
    void statements_splitAtLineEndSemicolonsWithoutComments() {
        assertThat(Migrations.statements("V1__initial_schema.sql"))
                .isNotEmpty()
                .allSatisfy(s -> assertThat(s).endsWith(";").doesNotContain("--"))
                .anySatisfy(s -> assertThat(s).startsWith("CREATE TABLE sessions"));
    }
}
