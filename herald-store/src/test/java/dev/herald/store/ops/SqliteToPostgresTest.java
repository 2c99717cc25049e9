package dev.herald.store.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnState;
import dev.herald.store.postgres.PostgresOwner;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code herald store copy}: a SQLite home's data into PostgreSQL, verified by row counts, safe to run twice. */
class SqliteToPostgresTest {
    @TempDir
    Path dir;
    @RegisterExtension
    final TestDatabase pg = new TestDatabase();
    final MutableClock clock = MutableClock.atNoon();

    private Path sqliteWithTwoConversations() {
        Path db = dir.resolve("herald.db");
        try (SqliteStorage s = SqliteStorage.open(db, clock)) {
            Conversation.write(s, "alice", "first question", "first answer", clock);
            SessionEntry bob = Conversation.write(s, "bob", "bob asks", "bob is answered", clock);
            s.sessions().suspend(bob.key(), dev.herald.core.session.SuspendReason.OPERATOR);
            s.modelChoices().choose(bob.key(), "fast");
            s.chatPreferences().set(bob.key(), "voice", "tts");
            s.chatPreferences().set(bob.key(), "footer", "on");
            s.platformState().put(dev.herald.core.platform.Platform.of("weixin"), java.util.Map.of("cursor", "c-9"));
            s.accounts().create(new dev.herald.core.account.Account("ann", dev.herald.core.account.Role.ADMIN, "$argon2id$x", false,
                    clock.instant(), 2));
            s.accounts().addKey(new dev.herald.core.account.ApiKey("k1", "ann", "laptop", "h1", clock.instant(), null, null, 5));
            s.memories().add("telegram:7", "prefers tea", bob.key().value(), dev.herald.core.memory.Memory.Status.ACTIVE, clock.instant());
            s.identityLinks().link("telegram:7", "ann", clock.instant());
        }
        return db;
    }

    @Test
    void copy_movesEveryRowAndPostgresServesTheSameConversations() {
        Path db = sqliteWithTwoConversations();

        SqliteToPostgres.Result result = SqliteToPostgres.copy(db, pg.options(), clock);

        assertThat(result.verified()).isTrue();
        assertThat(result.tables()).extracting(SqliteToPostgres.TableCount::table, SqliteToPostgres.TableCount::source,
                SqliteToPostgres.TableCount::target).containsExactly(
                org.assertj.core.groups.Tuple.tuple("transcript_sessions", 2L, 2L), org.assertj.core.groups.Tuple.tuple("sessions", 2L, 2L),
                org.assertj.core.groups.Tuple.tuple("messages", 8L, 8L), org.assertj.core.groups.Tuple.tuple("turns", 2L, 2L),
                org.assertj.core.groups.Tuple.tuple("session_models", 1L, 1L), org.assertj.core.groups.Tuple.tuple("chat_preferences", 2L, 2L),
                org.assertj.core.groups.Tuple.tuple("schedule_jobs", 0L, 0L), org.assertj.core.groups.Tuple.tuple("schedule_runs", 0L, 0L),
                org.assertj.core.groups.Tuple.tuple("web_users", 1L, 1L), org.assertj.core.groups.Tuple.tuple("api_keys", 1L, 1L),
                org.assertj.core.groups.Tuple.tuple("memories", 1L, 1L), org.assertj.core.groups.Tuple.tuple("identity_links", 1L, 1L),
                org.assertj.core.groups.Tuple.tuple("platform_state", 1L, 1L));
        try (SqliteStorage from = SqliteStorage.open(db, clock); PostgresStorage to = PostgresStorage.open(pg.options(), clock)) {
            for (SessionEntry lane : from.sessions().search(dev.herald.core.session.SessionQuery.all(10))) {
                SessionEntry copied = to.sessions().find(lane.key()).orElseThrow();
                assertThat(copied.sessionId()).isEqualTo(lane.sessionId());
                assertThat(copied.suspended()).isEqualTo(lane.suspended());
                assertThat(to.modelChoices().chosen(lane.key())).isEqualTo(from.modelChoices().chosen(lane.key()));
                assertThat(to.chatPreferences().get(lane.key(), "voice")).isEqualTo(from.chatPreferences().get(lane.key(), "voice"));
                assertThat(to.transcripts().load(lane.sessionId())).isEqualTo(from.transcripts().load(lane.sessionId()));
            }
            assertThat(to.platformState().get(dev.herald.core.platform.Platform.of("weixin"), "cursor")).contains("c-9");
            assertThat(to.accounts().find("ann")).isEqualTo(from.accounts().find("ann"));
            assertThat(to.accounts().keyByHash("h1").orElseThrow().uses()).isEqualTo(5);
            assertThat(to.memories().list("telegram:7", true, 10)).isEqualTo(from.memories().list("telegram:7", true, 10));
            assertThat(to.memories().add("telegram:7", "a later fact", null, dev.herald.core.memory.Memory.Status.ACTIVE, clock.instant()).id())
                    .as("the copied ids are not handed out again").isGreaterThan(from.memories().list("telegram:7", true, 1).getFirst().id());
            assertThat(to.turns().inState(TurnState.DELIVERED, 10)).extracting(t -> t.id() + ":" + t.reply())
                    .containsExactlyInAnyOrderElementsOf(from.turns().inState(TurnState.DELIVERED, 10).stream()
                            .map(t -> t.id() + ":" + t.reply()).toList());
            // the copy goes on as a store: a new turn gets an id after the copied ones
            SessionEntry alice = to.sessions().search(dev.herald.core.session.SessionQuery.all(10)).stream()
                    .filter(e -> e.key().value().contains("alice")).findFirst().orElseThrow();
            assertThat(to.transcripts().append(alice.sessionId(), TranscriptRow.user("and now?", clock.instant())).seq()).isEqualTo(5);
        }
    }

    @Test
    void copy_movesScheduledJobsWithTheirNextRunAndOccurrences() {
        Path db = sqliteWithTwoConversations();
        java.time.Instant now = clock.instant();
        dev.herald.core.schedule.Schedule daily = dev.herald.core.schedule.Schedule.parse("0 9 * * 1-5", java.time.ZoneId.of("Europe/Berlin"), now);
        dev.herald.core.schedule.Job job = new dev.herald.core.schedule.Job("standup", "post the standup", daily,
                dev.herald.core.schedule.Targets.parse("loopback:alice", "standup", null), dev.herald.core.schedule.Misfire.SKIP,
                java.time.Duration.ofMinutes(30), true, dev.herald.core.schedule.Definer.CONFIG, "config", now, now,
                daily.nextAfter(now).orElseThrow(), null, null, null);
        java.time.Instant next = job.nextRunAt().plus(java.time.Duration.ofDays(1));
        try (SqliteStorage s = SqliteStorage.open(db, clock)) {
            s.schedules().create(job);
            s.schedules().claim("standup", job.nextRunAt(), next, new dev.herald.core.schedule.JobRun("standup", job.nextRunAt(),
                    dev.herald.core.schedule.JobRun.Kind.ON_TIME, dev.herald.core.schedule.JobRun.State.CLAIMED, job.platform(),
                    dev.herald.core.schedule.JobRun.messageId("standup", job.nextRunAt()), null, now, now));
        }

        assertThat(SqliteToPostgres.copy(db, pg.options(), clock).verified()).isTrue();

        try (PostgresStorage to = PostgresStorage.open(pg.options(), clock)) {
            dev.herald.core.schedule.Job copied = to.schedules().find("standup").orElseThrow();
            assertThat(copied.schedule()).isEqualTo(job.schedule());
            assertThat(copied.source()).isEqualTo(job.source());
            assertThat(copied.nextRunAt()).isEqualTo(next);
            assertThat(to.schedules().runs("standup", 5)).hasSize(1);
        }
    }

    @Test
    void copy_twice_addsNothingTheSecondTime() {
        Path db = sqliteWithTwoConversations();
        SqliteToPostgres.copy(db, pg.options(), clock);

        SqliteToPostgres.Result again = SqliteToPostgres.copy(db, pg.options(), clock);

        assertThat(again.verified()).isTrue();
        assertThat(again.inserted()).isZero();
        assertThat(pg.text("SELECT COUNT(*) FROM messages")).isEqualTo("8");
    }

    @Test
    void copy_intoADatabaseHoldingOtherData_isRefusedAndCommitsNothing() {
        Path db = sqliteWithTwoConversations();
        try (PostgresStorage other = PostgresStorage.open(pg.options(), clock)) {
            Conversation.write(other, "carol", "carol was here first", "hello carol", clock);
        }

        assertThatThrownBy(() -> SqliteToPostgres.copy(db, pg.options(), clock)).isInstanceOf(StoreException.class)
                .hasMessageContaining("row counts differ").hasMessageContaining("sessions 2 -> 3").hasMessageContaining("nothing was committed");
        assertThat(pg.text("SELECT COUNT(*) FROM sessions")).isEqualTo("1");
    }

    @Test
    void copy_intoADatabaseARunningGatewayClaims_isRefused() {
        Path db = sqliteWithTwoConversations();
        try (PostgresStorage gateway = PostgresStorage.open(pg.options(), clock);
                PostgresOwner claim = PostgresOwner.claim(pg.options())) {

            assertThatThrownBy(() -> SqliteToPostgres.copy(db, pg.options(), clock)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("claimed by a running Herald gateway");
        }
        assertThat(pg.text("SELECT COUNT(*) FROM sessions")).isEqualTo("0");
    }

    @Test
    void conversations_readsEveryLaneOrOne_fromEitherStore() throws Exception {
        Path db = sqliteWithTwoConversations();
        SqliteToPostgres.copy(db, pg.options(), clock);
        for (Conversations reader : List.of(Conversations.sqlite(db), Conversations.postgres(pg.options()))) {
            try (reader) {
                StringBuilder seen = new StringBuilder();
                int all = reader.forEach(null, (s, rows) -> seen.append(s.sessionKey()).append('=').append(rows.size()).append(' '));
                int bob = reader.forEach("agent:main:loopback:dm:bob", (s, rows) -> assertThat(rows.getLast().content()).isEqualTo("bob is answered"));

                assertThat(all).isEqualTo(2);
                assertThat(bob).isEqualTo(1);
                assertThat(seen.toString().strip()).isEqualTo("agent:main:loopback:dm:alice=4 agent:main:loopback:dm:bob=4");
            }
        }
    }
}
