package dev.herald.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionQuery;
import dev.herald.store.jdbc.JdbcSessionStore;
import dev.herald.store.jdbc.JdbcTurnStore;
import dev.herald.store.jdbc.SessionTable;
import dev.herald.store.jdbc.TranscriptTables;
import dev.herald.store.jdbc.UsageQuery;
import dev.herald.testkit.MutableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The statements that run per message or at start-up reach their rows through the index meant for them:
 * with sequential scans priced out (the tables are empty here), each plan uses that index and none scans a
 * whole table, so their cost does not grow with the number of lanes, turns or rows.
 */
class PostgresQueryPlanTest {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    static Stream<Arguments> statements() {
        JdbcSessionStore.Search all = JdbcSessionStore.Search.of(SessionQuery.all(50));
        JdbcSessionStore.Search suspended = JdbcSessionStore.Search.of(
                new SessionQuery(SessionQuery.State.SUSPENDED, Optional.of(Platform.of("loopback")), Optional.empty(), 50, 100));
        return Stream.of(
                Arguments.of("stuck lanes", JdbcSessionStore.STUCK + PostgresStorage.DIALECT.lockForUpdate(), new Object[] {3}, "sessions_interrupted"),
                Arguments.of("suspend stuck lane", JdbcSessionStore.SUSPEND_STUCK, new Object[] {1L, "k"}, "sessions_pkey"),
                Arguments.of("count interruption", SessionTable.COUNT_INTERRUPTION, new Object[] {"k"}, "sessions_pkey"),
                Arguments.of("resume-pending lanes", JdbcSessionStore.resumePendingQuery(false), new Object[0], "sessions_resume_pending"),
                Arguments.of("resume-pending lanes of a platform", JdbcSessionStore.resumePendingQuery(true), new Object[] {"loopback"},
                        "sessions_resume_pending"),
                Arguments.of("search all", all.sql(), all.args(), "sessions_by_updated"),
                Arguments.of("search suspended", suspended.sql(), suspended.args(), "sessions_suspended"),
                Arguments.of("lane by key", SessionTable.FIND + " FOR UPDATE", new Object[] {"k"}, "sessions_pkey"),
                Arguments.of("running turns", JdbcTurnStore.RUNNING, new Object[0], "turns_by_state"),
                Arguments.of("turns in a state", JdbcTurnStore.IN_STATE, new Object[] {"RECEIVED", 10}, "turns_by_state"),
                Arguments.of("waiting turns", JdbcTurnStore.waitingSql(0), new Object[] {"n", 1L, "n", 10}, "turns_by_state"),
                Arguments.of("waiting turns of unbound platforms", JdbcTurnStore.waitingSql(2), new Object[] {"n", 1L, "n", "telegram", "discord", 10},
                        "turns_by_state"),
                Arguments.of("latest started turn", JdbcTurnStore.LATEST_STARTED, new Object[] {"k"}, "turns_by_lane"),
                Arguments.of("start a turn", JdbcTurnStore.START, new Object[] {1L, null, "s", 1L, null, null, null, null, null, 0, 7L},
                        "turns_one_running_per_lane"),
                Arguments.of("turn by id", JdbcTurnStore.FIND, new Object[] {7L}, "turns_pkey"),
                Arguments.of("resume after a turn", JdbcTurnStore.RESUME_AFTER, new Object[] {"k", 7L}, "turns_by_lane"),
                Arguments.of("usage of two senders", UsageQuery.sql(2), new Object[] {1L, 1L, 1L, "webchat", "u:ann", 0L, "api_server", "u:ann", 0L},
                        "turns_by_sender"),
                Arguments.of("turn of a message", JdbcTurnStore.FIND_BY_MESSAGE, new Object[] {"api_server", "m-1"}, "turns_platform_message"),
                Arguments.of("newest compression child", TranscriptTables.newestChild(PostgresStorage.DIALECT), new Object[] {"s"},
                        "transcript_sessions_by_parent"),
                Arguments.of("lock a transcript", TranscriptTables.SESSION_EXISTS + PostgresStorage.DIALECT.lockForAppend(), new Object[] {"s"}, "transcript_sessions_pkey"),
                Arguments.of("next seq", TranscriptTables.NEXT_SEQ, new Object[] {"s"}, "messages_pkey"),
                Arguments.of("load a transcript", TranscriptTables.LOAD, new Object[] {"s"}, "messages_pkey"),
                Arguments.of("last activity", TranscriptTables.LAST_ACTIVITY, new Object[] {"s"}, "messages_pkey"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statements")
    void statement_usesItsIndexInsteadOfAScan(String name, String sql, Object[] args, String index) throws Exception {
        PostgresStorage.open(db.options(), MutableClock.atNoon()).close();

        List<String> plan = plan(sql, args);

        assertThat(plan).as("plan of %s", sql).isNotEmpty().noneMatch(step -> step.contains("Seq Scan"))
                .anyMatch(step -> step.contains("Index") && (step.contains(" " + index + " ") || step.endsWith(" " + index)));
    }

    private List<String> plan(String sql, Object[] args) throws Exception {
        try (Connection c = db.connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET enable_seqscan = off");
            }
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i]);
                }
                List<String> steps = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        steps.add(rs.getString(1));
                    }
                }
                return steps;
            }
        }
    }
}
