package dev.herald.store.ops;

import dev.herald.core.session.StoreException;
import dev.herald.store.postgres.PostgresOptions;
import dev.herald.store.postgres.PostgresStorage;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Copies a Herald SQLite store into a PostgreSQL database: {@code herald store copy}.
 *
 * <ul>
 *   <li><b>Schema.</b> The target is opened once as a store, which creates or migrates Herald's tables there;
 *       the source is read on a read-only connection in one read transaction (a consistent snapshot). Both
 *       schemas have the same tables and columns; SQLite's 0/1 flags become booleans.</li>
 *   <li><b>Idempotent.</b> Every row is inserted with {@code ON CONFLICT DO NOTHING}, all in one transaction:
 *       a copy that fails leaves the target as it was, and a second copy adds nothing. Turn ids are kept
 *       (and the id sequence moved past them); transcript sessions go in creation order (SQLite's rowid), so
 *       a compression child always finds its parent and ties between siblings break as before.</li>
 *   <li><b>Verified.</b> Afterwards each table must hold exactly as many rows as the source; a target that
 *       already held other data fails the check (the copy is still committed only when the counts match).</li>
 *   <li><b>One gateway.</b> The target must not be claimed by a running gateway (the gateway lock).</li>
 * </ul>
 */
public final class SqliteToPostgres {
    private static final int BATCH = 500;
    /** Tables in foreign-key order, with the columns copied and the SQLite key that orders the read. */
    private static final Map<String, String> TABLES = new LinkedHashMap<>();
    /** Tables whose id PostgreSQL generates: copied ids are kept, and the sequence moves past them. */
    private static final List<String> IDENTITIES = List.of("turns", "memories");
    private static final Set<String> BOOLEANS = Set.of("suspended", "was_auto_reset", "resume_pending");

    static {
        TABLES.put("transcript_sessions", "rowid");
        TABLES.put("sessions", "session_key");
        TABLES.put("messages", "session_id, seq");
        TABLES.put("turns", "id");
        TABLES.put("session_models", "session_key");
        TABLES.put("chat_preferences", "session_key, name");
        TABLES.put("schedule_jobs", "id");
        TABLES.put("schedule_runs", "job_id, scheduled_at");
        TABLES.put("web_users", "name");
        TABLES.put("api_keys", "id");
        TABLES.put("memories", "id");
        TABLES.put("identity_links", "identity"); // link codes are not copied: they last minutes
        TABLES.put("platform_state", "platform, name"); // Weixin's cursor and reply tokens (nodes and leases are not copied)
    }

    /** Rows per table: in the source, inserted now, and in the target afterwards. */
    public record TableCount(String table, long source, long inserted, long target) {
        public boolean matches() {
            return source == target;
        }
    }

    /** What a copy did. */
    public record Result(List<TableCount> tables, long millis) {
        public boolean verified() {
            return tables.stream().allMatch(TableCount::matches);
        }

        public long inserted() {
            return tables.stream().mapToLong(TableCount::inserted).sum();
        }
    }

    private SqliteToPostgres() {
    }

    /**
     * Copies {@code source} into the database {@code target} names.
     *
     * @throws StoreException when either cannot be opened, the target is claimed by a gateway, or the counts do
     *                        not match (then nothing of this copy is committed)
     */
    public static Result copy(Path source, PostgresOptions target, Clock clock) {
        long started = System.nanoTime();
        String where = target.describe();
        PostgresStorage.open(target.withPoolSize(1), clock).close(); // creates or migrates Herald's tables there
        try (PlainConn from = SqliteFiles.readOnly(source); Connection to = connect(target)) {
            requireNoGateway(to, where);
            requireLatestSchema(from, source);
            from.jdbc().setAutoCommit(false); // one read transaction: a snapshot, however the gateway writes meanwhile
            to.setAutoCommit(false);
            List<TableCount> counts = new ArrayList<>();
            for (Map.Entry<String, String> t : TABLES.entrySet()) {
                counts.add(copyTable(from.jdbc(), to, t.getKey(), t.getValue()));
            }
            try (Statement s = to.createStatement()) {
                for (String table : IDENTITIES) {
                    s.execute("SELECT setval(pg_get_serial_sequence('" + table + "', 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM "
                            + table + "), 1))");
                }
            }
            Result result = new Result(List.copyOf(counts), (System.nanoTime() - started) / 1_000_000);
            if (!result.verified()) {
                to.rollback();
                throw StoreException.unavailable("copy into " + where + " stopped: row counts differ after the copy ("
                        + describe(counts) + "); the target already held other data, so nothing was committed; copy into an empty database",
                        null, false);
            }
            to.commit();
            from.jdbc().rollback();
            return result;
        } catch (SQLException e) {
            throw StoreException.unavailable("copy of " + source + " into " + where + " failed (SQL state " + e.getSQLState()
                    + ": " + e.getMessage() + "); nothing was committed", null, false);
        }
    }

    static String describe(List<TableCount> counts) {
        StringBuilder sb = new StringBuilder();
        for (TableCount c : counts) {
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(c.table()).append(' ').append(c.source()).append(" -> ").append(c.target());
        }
        return sb.toString();
    }

    private static Connection connect(PostgresOptions options) throws SQLException {
        Properties login = new Properties();
        if (options.user() != null) {
            login.setProperty("user", options.user());
        }
        if (options.password() != null) {
            login.setProperty("password", options.password());
        }
        login.setProperty("ApplicationName", "herald-store-copy");
        return DriverManager.getConnection(options.url(), login);
    }

    private static void requireNoGateway(Connection to, String where) throws SQLException {
        try (Statement s = to.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_try_advisory_lock(" + dev.herald.store.postgres.PostgresOwner.GATEWAY_LOCK + ")")) {
            if (!rs.next() || !rs.getBoolean(1)) {
                throw StoreException.unavailable(where + " is claimed by a running Herald gateway; stop it before copying into it", null, false);
            }
        }
    }

    private static void requireLatestSchema(PlainConn from, Path source) throws SQLException {
        long sqlite = from.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_version");
        long latest = dev.herald.store.sqlite.SqliteStorage.schemaVersion();
        if (sqlite != latest) {
            throw StoreException.unavailable(source + " has schema v" + sqlite + ", this Herald copies v" + latest
                    + "; start this Herald on it once (it migrates the file) and copy again", null, false);
        }
    }

    private static TableCount copyTable(Connection from, Connection to, String table, String order) throws SQLException {
        long source;
        try (Statement s = from.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            source = rs.getLong(1);
        }
        long inserted = 0;
        try (Statement s = from.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY " + order)) {
            ResultSetMetaData meta = rs.getMetaData();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                columns.add(meta.getColumnName(i));
            }
            String insert = "INSERT INTO " + table + " (" + String.join(", ", columns) + ")"
                    + (IDENTITIES.contains(table) ? " OVERRIDING SYSTEM VALUE" : "")
                    + " VALUES (" + String.join(", ", columns.stream().map(c -> "?").toList()) + ") ON CONFLICT DO NOTHING";
            try (PreparedStatement ps = to.prepareStatement(insert)) {
                int pending = 0;
                while (rs.next()) {
                    for (int i = 0; i < columns.size(); i++) {
                        bind(ps, i + 1, columns.get(i), rs.getObject(i + 1));
                    }
                    ps.addBatch();
                    if (++pending == BATCH) {
                        inserted += sum(ps.executeBatch());
                        pending = 0;
                    }
                }
                if (pending > 0) {
                    inserted += sum(ps.executeBatch());
                }
            }
        }
        long target;
        try (Statement s = to.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            target = rs.getLong(1);
        }
        return new TableCount(table, source, inserted, target);
    }

    private static void bind(PreparedStatement ps, int index, String column, Object value) throws SQLException {
        if (value == null) {
            ps.setNull(index, BOOLEANS.contains(column) ? Types.BOOLEAN : Types.NULL);
        } else if (BOOLEANS.contains(column)) {
            ps.setBoolean(index, ((Number) value).longValue() != 0);
        } else if (value instanceof Integer i) {
            ps.setLong(index, i);
        } else {
            ps.setObject(index, value);
        }
    }

    private static long sum(int[] counts) {
        long n = 0;
        for (int c : counts) {
            n += Math.max(c, 0);
        }
        return n;
    }
}
