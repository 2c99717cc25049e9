package dev.herald.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.core.platform.Platform;
import dev.herald.store.jdbc.SchemaMigrations;
import dev.herald.testkit.MutableClock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresMigrationsTest {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    final MutableClock clock = MutableClock.atNoon();

    @Test
    void open_emptyDatabase_appliesEverySchemaVersionWithItsIndexes() {
        try (PostgresStorage storage = PostgresStorage.open(db.options(), clock)) {
            assertThat(storage.sessions().count()).isZero();
        }

        assertThat(db.text("SELECT MAX(version) FROM schema_version")).isEqualTo(String.valueOf(PgMigrations.latest()));
        assertThat(db.text("SELECT COUNT(*) FROM schema_version")).isEqualTo(String.valueOf(PgMigrations.FILES.size()));
        for (String index : List.of("turns_one_running_per_lane", "turns_platform_message", "turns_by_state", "turns_by_lane",
                "sessions_resume_pending", "sessions_interrupted", "sessions_by_updated", "sessions_suspended",
                "transcript_sessions_by_parent", "messages_pkey")) {
            assertThat(db.text("SELECT indexname FROM pg_indexes WHERE indexname = ?", index)).as(index).isEqualTo(index);
        }
    }

    @Test
    void open_currentSchema_appliesNothingTwiceAndKeepsTheData() {
        SessionSource source = SessionSource.dm(Platform.of("loopback"), "1", "u1");
        try (PostgresStorage storage = PostgresStorage.open(db.options(), clock)) {
            storage.sessions().getOrCreate(SessionKey.of(source), source);
        }

        try (PostgresStorage storage = PostgresStorage.open(db.options(), clock)) {
            assertThat(storage.sessions().find(SessionKey.of(source))).isPresent();
        }

        assertThat(db.text("SELECT COUNT(*) FROM schema_version")).isEqualTo(String.valueOf(PgMigrations.FILES.size()));
    }

    @Test
    void open_turnsFromBeforeVersion15_getTheirSendersUserIdFromTheirSource_aDamagedSourceNone() {
        SessionSource ann = SessionSource.dm(Platform.of("webchat"), "c1", "u:ann");
        SessionSource bob = SessionSource.dm(Platform.of("api_server"), "c2", "u:bob");
        SessionSource damaged = SessionSource.dm(Platform.of("webchat"), "c3", "u:cy");
        try (PostgresStorage storage = PostgresStorage.open(db.options(), clock)) {
            for (SessionSource s : List.of(ann, bob, damaged)) {
                storage.turns().receive(SessionKey.of(s), dev.herald.core.platform.MessageEvent.text(s, "hi", null, clock.instant()));
            }
        }
        // the database as version 14 left it, with a source that is not JSON: the rows are filled one by one
        db.update("DROP INDEX turns_by_sender");
        db.update("ALTER TABLE turns DROP COLUMN user_id");
        db.update("UPDATE turns SET source = '{not json' WHERE session_key = ?", SessionKey.of(damaged).value());
        db.update("DELETE FROM schema_version WHERE version >= 15");

        PostgresStorage.open(db.options(), clock).close();

        assertThat(db.text("SELECT user_id FROM turns WHERE session_key = ?", SessionKey.of(ann).value())).isEqualTo("u:ann");
        assertThat(db.text("SELECT user_id FROM turns WHERE session_key = ?", SessionKey.of(bob).value())).isEqualTo("u:bob");
        assertThat(db.text("SELECT COALESCE(user_id, 'none') FROM turns WHERE session_key = ?", SessionKey.of(damaged).value()))
                .isEqualTo("none");
        assertThat(db.text("SELECT indexname FROM pg_indexes WHERE indexname = 'turns_by_sender'")).isEqualTo("turns_by_sender");
    }

    @Test
    void open_severalProcessesAtOnceOnAnEmptyDatabase_oneMigratesAndAllOpen() throws Exception {
        try (ExecutorService nodes = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<PostgresStorage>> opened = List.of(
                    nodes.submit(() -> PostgresStorage.open(db.options(), clock)),
                    nodes.submit(() -> PostgresStorage.open(db.options(), clock)),
                    nodes.submit(() -> PostgresStorage.open(db.options(), clock)));
            for (Future<PostgresStorage> f : opened) {
                f.get().close();
            }
        }

        assertThat(db.text("SELECT COUNT(*) FROM schema_version")).isEqualTo(String.valueOf(PgMigrations.FILES.size()));
    }

    @Test
    void open_databaseOfANewerHerald_isRefusedNamingTheDatabaseAndBothVersions_andLeftUntouched() {
        PostgresStorage.open(db.options(), clock).close();
        int newer = PgMigrations.latest() + 6;
        db.update("INSERT INTO schema_version (version, description, applied_at) VALUES (?, 'from the future', 0)", newer);

        assertThatThrownBy(() -> PostgresStorage.open(db.options(), clock))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("postgresql localhost:" + PostgresTestServer.server().getPort() + "/" + db.name())
                .hasMessageContaining("schema version " + newer)
                .hasMessageContaining("knows up to " + PgMigrations.latest())
                .hasMessageContaining("upgrade Herald");

        assertThat(db.text("SELECT MAX(version) FROM schema_version")).isEqualTo(String.valueOf(newer));
        assertThat(db.text("SELECT COUNT(*) FROM schema_version")).isEqualTo(String.valueOf(PgMigrations.FILES.size() + 1));
    }

    @Test
    void migrations_areNumberedFromOneWithoutGaps() {
        assertThat(PgMigrations.all()).extracting(SchemaMigrations.Migration::version)
                .containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, PgMigrations.FILES.size()).boxed().toList());
    }

    @Test
    void statements_splitAtLineEndSemicolonsWithoutComments() {
        assertThat(PgMigrations.statements("V1__initial_schema.sql"))
                .isNotEmpty()
                .allSatisfy(s -> assertThat(s).endsWith(";").doesNotContain("--"))
                .anySatisfy(s -> assertThat(s).startsWith("CREATE TABLE sessions"));
    }
}
