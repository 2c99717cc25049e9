package dev.herald.store.sqlite;

import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.session.SuspendReason;
import dev.herald.store.jdbc.JdbcSessionStore;
import dev.herald.store.jdbc.Micros;
import dev.herald.store.jdbc.SessionTable;
import dev.herald.store.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The session index on SQLite ({@link JdbcSessionStore}): one row per lane, every change one short write
 * transaction on the one writer, so a lane's read-modify-write needs no row lock and a lane's row is simply
 * upserted.
 */
final class SqliteSessionStore extends JdbcSessionStore<SqlConn> {
    // Both go through the partial index sessions_interrupted (no ORDER BY: sorting by key would scan every lane).
    static final String STUCK = """
            SELECT session_key, interrupted_restarts FROM sessions
            WHERE interrupted_restarts > 0 AND interrupted_restarts >= ? AND suspended = 0""";
    static final String SUSPEND_STUCK = """
            UPDATE sessions SET suspended = 1, interrupted_restarts = 0,
                suspend_reason = CASE WHEN suspended = 1 THEN suspend_reason ELSE 'stuck_loop' END,
                suspended_at = CASE WHEN suspended = 1 THEN suspended_at ELSE ? END
            WHERE interrupted_restarts > 0 AND interrupted_restarts >= ?""";

    SqliteSessionStore(Transactions<SqlConn> tx, Clock clock) {
        super(tx, clock, "", TranscriptSql.NEWEST_COMPRESSION_CHILD, """
                UPDATE sessions SET resume_pending = 1, resume_reason = ?, resume_marked_at = ?
                WHERE session_key = ? AND suspended = 0""",
                // writes are serial: the turn cannot record its reply between this check and the mark
                " AND EXISTS (SELECT 1 FROM turns WHERE id = ? AND session_key = sessions.session_key AND state = 'RUNNING')");
    }

    @Override
    protected String newTranscript(SqlConn c, String key, Instant now) throws SQLException {
        return TranscriptSql.newSession(c, key, now);
    }

    @Override
    protected void insertLane(SqlConn c, SessionEntry lane) throws SQLException {
        SessionRows.put(c, lane);
    }

    @Override
    protected void replaceLane(SqlConn c, SessionEntry lane) throws SQLException {
        SessionRows.put(c, lane);
    }

    @Override
    protected String resumePendingSql(boolean byPlatform) {
        return resumePendingQuery(byPlatform);
    }

    @Override
    public boolean clearResumePending(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.write("session " + key, c -> c.update("""
                UPDATE sessions SET resume_pending = 0, resume_reason = NULL, resume_marked_at = NULL
                WHERE session_key = ? AND resume_pending = 1""", key.value()) == 1);
    }

    @Override
    public boolean suspend(SessionKey key, SuspendReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return tx.write("session " + key, c -> c.update("""
                UPDATE sessions SET suspended = 1,
                    suspend_reason = CASE WHEN suspended = 1 THEN suspend_reason ELSE ? END,
                    suspended_at = CASE WHEN suspended = 1 THEN suspended_at ELSE ? END
                WHERE session_key = ?""", reason.code(), Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public boolean unsuspend(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.write("session " + key, c -> c.update("""
                UPDATE sessions SET suspended = 0, suspend_reason = NULL, suspended_at = NULL, interrupted_restarts = 0
                WHERE session_key = ? AND suspended = 1""", key.value()) == 1);
    }

    @Override
    public List<SessionEntry> search(SessionQuery query) {
        StringBuilder sql = new StringBuilder("SELECT " + SessionTable.READ + " FROM sessions WHERE 1 = 1");
        List<Object> args = new java.util.ArrayList<>();
        switch (query.state()) {
            case RESUME_PENDING -> sql.append(" AND resume_pending = 1");
            case SUSPENDED -> sql.append(" AND suspended = 1");
            case ACTIVE -> sql.append(" AND suspended = 0 AND resume_pending = 0");
            case ALL -> {
            }
        }
        query.platform().ifPresent(p -> {
            sql.append(" AND platform = ?");
            args.add(p.id());
        });
        query.contains().ifPresent(text -> {
            sql.append(" AND session_key LIKE ? ESCAPE '\\'");
            args.add("%" + text.toLowerCase(java.util.Locale.ROOT).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
        });
        sql.append(" ORDER BY updated_at DESC, session_key LIMIT ? OFFSET ?");
        args.add(query.limit());
        args.add(query.offset());
        return tx.read("session search", c -> c.listReadable(sql.toString(), SessionTable::decode, SessionTable::subject, args.toArray()));
    }

    /** Through the partial index sessions_resume_pending. */
    static String resumePendingQuery(boolean byPlatform) {
        return "SELECT " + SessionTable.READ + " FROM sessions WHERE resume_pending = 1 AND suspended = 0"
                + (byPlatform ? " AND platform = ?" : "") + " ORDER BY resume_marked_at, session_key";
    }

    @Override
    protected List<SessionKey> interruptionOrder(Collection<SessionKey> keys) {
        return List.copyOf(keys);
    }

    @Override
    protected List<SessionKey> suspendStuck(SqlConn c, int threshold) throws SQLException {
        record Stuck(String key, int count) {
        }
        List<Stuck> stuck = new ArrayList<>(c.list(STUCK, rs -> new Stuck(rs.getString(1), rs.getInt(2)), threshold));
        stuck.sort(Comparator.comparing(Stuck::key));
        c.update(SUSPEND_STUCK, Micros.of(Micros.now(clock)), threshold);
        List<SessionKey> keys = new ArrayList<>(stuck.size());
        for (Stuck s : stuck) {
            reportStuck(s.key(), s.count(), threshold, keys);
        }
        return keys;
    }
}
