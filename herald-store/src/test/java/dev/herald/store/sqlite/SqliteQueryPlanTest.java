package dev.herald.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.session.SessionQuery;
import dev.herald.store.jdbc.JdbcSessionStore;
import dev.herald.store.jdbc.JdbcTurnStore;
import dev.herald.store.jdbc.SessionTable;
import dev.herald.store.jdbc.TranscriptTables;
import dev.herald.store.jdbc.UsageQuery;
import dev.herald.testkit.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The statements that run per message or at start-up reach their rows through an index: none of
 * them scans a whole table, so their cost does not grow with the number of lanes.
 */
class SqliteQueryPlanTest {
    @TempDir
    Path dir;

    static List<String> statements() {
        return List.of(
            JdbcSessionStore.STUCK + SqliteStorage.DIALECT.lockForUpdate(),
            JdbcSessionStore.SUSPEND_STUCK,
            JdbcSessionStore.resumePendingQuery(false),
            JdbcSessionStore.resumePendingQuery(true),
            JdbcSessionStore.Search.of(new SessionQuery(SessionQuery.State.SUSPENDED, Optional.empty(), Optional.empty(), 50, 0)).sql(),
            JdbcSessionStore.Search.of(new SessionQuery(SessionQuery.State.RESUME_PENDING, Optional.empty(), Optional.empty(), 50, 0)).sql(),
            JdbcSessionStore.Search.of(SessionQuery.all(50)).sql(),
            JdbcTurnStore.RUNNING,
            JdbcTurnStore.IN_STATE,
            JdbcTurnStore.waitingSql(0),
            JdbcTurnStore.waitingSql(2),
            JdbcTurnStore.LATEST_STARTED,
            JdbcTurnStore.RESUME_AFTER,
            JdbcTurnStore.FIND_BY_MESSAGE,
            JdbcTurnStore.START,
            UsageQuery.sql(1),
            UsageQuery.sql(3),
            TranscriptTables.newestChild(SqliteStorage.DIALECT),
            TranscriptTables.NEXT_SEQ,
            TranscriptTables.LAST_ACTIVITY,
            "SELECT " + SessionTable.COLUMNS + " FROM sessions WHERE session_key = ?");
    }

    @ParameterizedTest
    @MethodSource("statements")
    void statement_usesAnIndexInsteadOfAScan(String sql) throws Exception {
        RawSql.open(dir, MutableClock.atNoon()).close();

        List<String> plan = plan(sql);

        assertThat(plan).as("plan of %s", sql).isNotEmpty()
                .noneMatch(step -> step.matches("SCAN (sessions|messages|turns|transcript_sessions|r|p|c|t|s|h|b)( .*)?") && !step.contains("USING"));
    }

    private List<String> plan(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + RawSql.file(dir));
                PreparedStatement ps = c.prepareStatement("EXPLAIN QUERY PLAN " + sql)) {
            for (int i = 1; i <= ps.getParameterMetaData().getParameterCount(); i++) {
                ps.setObject(i, "x");
            }
            List<String> steps = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    steps.add(rs.getString("detail"));
                }
            }
            return steps;
        }
    }
}
