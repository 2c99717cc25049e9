package dev.herald.store.sqlite;

import dev.herald.store.jdbc.SessionRows;
import dev.herald.store.jdbc.TranscriptTables;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.store.jdbc.Micros;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.sqlite.SQLiteConfig;

/**
 * Fills a database with many synthetic lanes fast, for benchmarks: big transactions, no fsync, rows in
 * key order. Not for the gateway: it bypasses the writer and must run while no store has the file open.
 * Lane {@code n} is a DM on platform {@code loopback} with chat id {@code bench-<n>}.
 */
public final class SqliteBulkLoader {
    private static final int PER_TRANSACTION = 20_000;
    private static final Platform PLATFORM = Platform.of("loopback");
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss").withZone(ZoneOffset.UTC);

    private SqliteBulkLoader() {
    }

    public static SessionSource source(int n) {
        return new SessionSource(PLATFORM, "bench-" + n, ChatType.DM, "user-" + n, "User " + n, null, null);
    }

    public static SessionKey key(int n) {
        return SessionKey.of(source(n));
    }

    /** The transcript session id of lane {@code n} in a database filled at {@code at}. */
    public static String sessionId(int n, Instant at) {
        return ID_TIME.format(at) + "_" + String.format("%08x", n);
    }

    /**
     * Creates (migrating as the store would) and fills {@code dbFile} with lanes {@code 0..sessions-1},
     * each with {@code rowsPerSession} transcript rows, all at the clock's time.
     */
    public static void fill(Path dbFile, int sessions, int rowsPerSession, Clock clock) {
        SqliteStorage.open(dbFile, clock).close();
        Instant now = Micros.now(clock);
        try (SqlConn c = new SqlConn(new SQLiteConfig().createConnection("jdbc:sqlite:" + dbFile.toAbsolutePath()))) {
            c.exec("PRAGMA synchronous = OFF");
            c.exec("PRAGMA cache_size = -262144");
            c.exec("BEGIN");
            for (int n = 0; n < sessions; n++) {
                insertLane(c, n, rowsPerSession, now);
                if ((n + 1) % PER_TRANSACTION == 0) {
                    c.exec("COMMIT");
                    c.exec("BEGIN");
                }
            }
            c.exec("COMMIT");
            c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException e) {
            throw StoreException.unavailable("bulk load of " + sessions + " sessions into " + dbFile, e, false);
        }
    }

    private static void insertLane(SqlConn c, int n, int rows, Instant now) throws SQLException {
        SessionSource source = source(n);
        String sessionId = sessionId(n, now);
        TranscriptTables.insertSession(c, sessionId, key(n).value(), null, now);
        SessionRows.insertIfAbsent(c, SessionEntry.fresh(key(n), sessionId, source, now));
        for (int r = 0; r < rows; r++) {
            TranscriptRow row = r % 2 == 0 ? TranscriptRow.user("message " + r + " of lane " + n, now)
                    : TranscriptRow.assistant("a reply of a realistic length to message " + (r - 1) + " in lane " + n, now);
            c.update("INSERT INTO messages (session_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
                    sessionId, r + 1, row.role().wire(), row.content(), Micros.of(now));
        }
    }
}
