package dev.herald.store.postgres;

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
import java.util.Locale;
import java.util.Objects;

/**
 * The session index on PostgreSQL ({@link JdbcSessionStore}): one row per lane, every call one short transaction.
 *
 * <p>Concurrency does not rely on this JVM: a lane's read-modify-write ({@link #getOrCreate}, {@link #reset})
 * locks its row ({@code SELECT ... FOR UPDATE}); creating a lane inserts with {@code ON CONFLICT DO NOTHING}
 * and, when another writer created it first, rolls back and runs again against that lane; the marks are
 * single conditional UPDATEs.
 */
final class PostgresSessionStore extends JdbcSessionStore<PgConn> {
    /** Lanes at the stuck-loop threshold, through the partial index sessions_interrupted, locked for the sweep. */
    static final String STUCK = """
            SELECT session_key, interrupted_restarts, suspended FROM sessions
            WHERE interrupted_restarts > 0 AND interrupted_restarts >= ? ORDER BY session_key FOR UPDATE""";
    static final String SUSPEND_STUCK = """
            UPDATE sessions SET suspended = TRUE, interrupted_restarts = 0,
                suspend_reason = CASE WHEN suspended THEN suspend_reason ELSE 'stuck_loop' END,
                suspended_at = CASE WHEN suspended THEN suspended_at ELSE ? END
            WHERE session_key = ?""";

    PostgresSessionStore(Transactions<PgConn> tx, Clock clock) {
        super(tx, clock, " FOR UPDATE", TranscriptSql.NEWEST_COMPRESSION_CHILD, """
                UPDATE sessions SET resume_pending = TRUE, resume_reason = ?, resume_marked_at = ?
                WHERE session_key = ? AND NOT suspended""",
                // FOR SHARE waits for a reply being recorded and re-reads the turn; a reply recorded later waits for the mark
                " AND EXISTS (SELECT 1 FROM turns WHERE id = ? AND session_key = sessions.session_key AND state = 'RUNNING' FOR SHARE)");
    }

    @Override
    protected String newTranscript(PgConn c, String key, Instant now) throws SQLException {
        return TranscriptSql.newSession(c, key, now);
    }

    /**
     * When another writer created the lane after this transaction looked, nothing is kept:
     * {@link PgPool.Retry} rolls back and the call runs again.
     */
    @Override
    protected void insertLane(PgConn c, SessionEntry lane) throws SQLException {
        if (!SessionRows.insertIfAbsent(c, lane)) {
            throw new PgPool.Retry("session " + lane.key() + " was created by another writer meanwhile");
        }
    }

    @Override
    protected void replaceLane(PgConn c, SessionEntry lane) throws SQLException {
        SessionRows.replace(c, lane);
    }

    @Override
    protected String resumePendingSql(boolean byPlatform) {
        return resumePendingQuery(byPlatform);
    }

    @Override
    public boolean clearResumePending(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.write("session " + key, c -> c.update("""
                UPDATE sessions SET resume_pending = FALSE, resume_reason = NULL, resume_marked_at = NULL
                WHERE session_key = ? AND resume_pending""", key.value()) == 1);
    }

    @Override
    public boolean suspend(SessionKey key, SuspendReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return tx.write("session " + key, c -> c.update("""
                UPDATE sessions SET suspended = TRUE,
                    suspend_reason = CASE WHEN suspended THEN suspend_reason ELSE ? END,
                    suspended_at = CASE WHEN suspended THEN suspended_at ELSE ? END
                WHERE session_key = ?""", reason.code(), Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public boolean unsuspend(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.write("session " + key, c -> c.update("""
                UPDATE sessions SET suspended = FALSE, suspend_reason = NULL, suspended_at = NULL, interrupted_restarts = 0
                WHERE session_key = ? AND suspended""", key.value()) == 1);
    }

    /** Through the partial index sessions_resume_pending, already in the wanted order. */
    static String resumePendingQuery(boolean byPlatform) {
        return "SELECT " + SessionTable.READ + " FROM sessions WHERE resume_pending AND NOT suspended"
                + (byPlatform ? " AND platform = ?" : "") + " ORDER BY resume_marked_at, session_key";
    }

    @Override
    public List<SessionEntry> search(SessionQuery query) {
        Search search = Search.of(query);
        return tx.read("session search", c -> c.listReadable(search.sql(), SessionTable::decode, SessionTable::subject, search.args()));
    }

    /** A page of lanes as SQL: newest activity first through sessions_by_updated (or sessions_suspended). */
    record Search(String sql, Object[] args) {
        static Search of(SessionQuery query) {
            Objects.requireNonNull(query, "query");
            StringBuilder sql = new StringBuilder("SELECT " + SessionTable.READ + " FROM sessions WHERE TRUE");
            List<Object> args = new ArrayList<>();
            switch (query.state()) {
                case RESUME_PENDING -> sql.append(" AND resume_pending");
                case SUSPENDED -> sql.append(" AND suspended");
                case ACTIVE -> sql.append(" AND NOT suspended AND NOT resume_pending");
                case ALL -> {
                }
            }
            query.platform().ifPresent(p -> {
                sql.append(" AND platform = ?");
                args.add(p.id());
            });
            query.contains().ifPresent(text -> {
                sql.append(" AND lower(session_key) LIKE ? ESCAPE '\\'");
                args.add("%" + likeEscaped(text.toLowerCase(Locale.ROOT)) + "%");
            });
            sql.append(" ORDER BY updated_at DESC, session_key LIMIT ? OFFSET ?");
            args.add(query.limit());
            args.add(query.offset());
            return new Search(sql.toString(), args.toArray());
        }
    }

    private static String likeEscaped(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    /** In key order, so that two sweeps never deadlock. */
    @Override
    protected List<SessionKey> interruptionOrder(Collection<SessionKey> keys) {
        return keys.stream().sorted(Comparator.comparing(SessionKey::value)).toList();
    }

    @Override
    protected List<SessionKey> suspendStuck(PgConn c, int threshold) throws SQLException {
        record Stuck(String key, int count, boolean suspended) {
        }
        List<Stuck> stuck = c.list(STUCK, rs -> new Stuck(rs.getString(1), rs.getInt(2), rs.getBoolean(3)), threshold);
        long now = Micros.of(Micros.now(clock));
        List<SessionKey> keys = new ArrayList<>();
        for (Stuck s : stuck) {
            c.update(SUSPEND_STUCK, now, s.key());
            if (s.suspended()) {
                continue; // already suspended: its counter is cleared, its first reason kept, and it is not reported again
            }
            reportStuck(s.key(), s.count(), threshold, keys);
        }
        keys.sort(Comparator.comparing(SessionKey::value));
        return keys;
    }
}
