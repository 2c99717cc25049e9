package dev.herald.store.postgres;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.ResetReason;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SessionStore;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.transcript.EndReason;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session index on PostgreSQL: one row per lane, every call one short transaction.
 *
 * <p>Concurrency does not rely on this JVM: a lane's read-modify-write ({@link #getOrCreate}, {@link #reset})
 * locks its row ({@code SELECT ... FOR UPDATE}); creating a lane inserts with {@code ON CONFLICT DO NOTHING}
 * and, when another writer created it first, rolls back and runs again against that lane; the marks are
 * single conditional UPDATEs.
 */
final class PostgresSessionStore implements SessionStore {
    private static final Logger log = LoggerFactory.getLogger(PostgresSessionStore.class);

    /** Lanes at the stuck-loop threshold, through the partial index sessions_interrupted, locked for the sweep. */
    static final String STUCK = """
            SELECT session_key, interrupted_restarts, suspended FROM sessions
            WHERE interrupted_restarts > 0 AND interrupted_restarts >= ? ORDER BY session_key FOR UPDATE""";
    static final String SUSPEND_STUCK = """
            UPDATE sessions SET suspended = TRUE, interrupted_restarts = 0,
                suspend_reason = CASE WHEN suspended THEN suspend_reason ELSE 'stuck_loop' END,
                suspended_at = CASE WHEN suspended THEN suspended_at ELSE ? END
            WHERE session_key = ?""";
    static final String COUNT_INTERRUPTION = "UPDATE sessions SET interrupted_restarts = interrupted_restarts + 1 WHERE session_key = ?";

    private final PgPool pool;
    private final Clock clock;

    PostgresSessionStore(PgPool pool, Clock clock) {
        this.pool = pool;
        this.clock = clock;
    }

    @Override
    public SessionEntry getOrCreate(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        return pool.write("session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<SessionEntry> stored = SessionRows.findForUpdate(c, key);
            if (stored.isEmpty()) {
                return create(c, key, origin, now);
            }
            SessionEntry entry = stored.get();
            String tip = TranscriptSql.tip(c, entry.sessionId());
            if (entry.suspended()) {
                TranscriptSql.end(c, tip, EndReason.SUSPENDED, now);
                log.info("store - session {} was suspended; started a fresh transcript (old {})", key, tip);
                SessionEntry fresh = fresh(key, TranscriptSql.newSession(c, key.value(), now), origin, now, ResetReason.SUSPENDED);
                SessionRows.replace(c, fresh);
                return fresh;
            }
            if (!tip.equals(entry.sessionId())) {
                log.info("store - session {} follows compression {} -> {}", key, entry.sessionId(), tip);
            }
            return SessionRows.touch(c, entry, tip, origin, now);
        });
    }

    /**
     * Creates the lane with its first live transcript. When another writer created the lane after this
     * transaction looked, nothing is kept: {@link PgPool.Retry} rolls back and the call runs again.
     */
    private static SessionEntry create(PgConn c, SessionKey key, SessionSource origin, Instant now) throws SQLException {
        SessionEntry fresh = fresh(key, TranscriptSql.newSession(c, key.value(), now), origin, now, null);
        if (!SessionRows.insertIfAbsent(c, fresh)) {
            throw new PgPool.Retry("session " + key + " was created by another writer meanwhile");
        }
        return fresh;
    }

    /** A lane pointing at a new live transcript with a clean continuity state. */
    private static SessionEntry fresh(SessionKey key, String sessionId, SessionSource origin, Instant now, ResetReason autoReset) {
        SessionEntry fresh = SessionEntry.fresh(key, sessionId, origin, now);
        if (autoReset == null) {
            return fresh;
        }
        return new SessionEntry(key, sessionId, now, now, origin, fresh.displayName(), fresh.platform(), fresh.chatType(),
                null, null, true, autoReset, false, null, null, 0, 0, 0);
    }

    @Override
    public Optional<SessionEntry> find(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return pool.read("session " + key, c -> SessionRows.find(c, key));
    }

    @Override
    public SessionEntry reset(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        return pool.write("session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<String> current = c.one("SELECT session_id FROM sessions WHERE session_key = ? FOR UPDATE",
                    rs -> rs.getString(1), key.value());
            if (current.isEmpty()) {
                return create(c, key, origin, now);
            }
            TranscriptSql.end(c, TranscriptSql.tip(c, current.get()), EndReason.SESSION_RESET, now);
            SessionEntry fresh = fresh(key, TranscriptSql.newSession(c, key.value(), now), origin, now, null);
            SessionRows.replace(c, fresh);
            return fresh;
        });
    }

    @Override
    public boolean markResumePending(SessionKey key, ResumeReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return pool.write("session " + key, c -> c.update("""
                UPDATE sessions SET resume_pending = TRUE, resume_reason = ?, resume_marked_at = ?
                WHERE session_key = ? AND NOT suspended""", reason.code(), Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public boolean clearResumePending(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return pool.write("session " + key, c -> c.update("""
                UPDATE sessions SET resume_pending = FALSE, resume_reason = NULL, resume_marked_at = NULL
                WHERE session_key = ? AND resume_pending""", key.value()) == 1);
    }

    @Override
    public boolean suspend(SessionKey key, SuspendReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return pool.write("session " + key, c -> c.update("""
                UPDATE sessions SET suspended = TRUE,
                    suspend_reason = CASE WHEN suspended THEN suspend_reason ELSE ? END,
                    suspended_at = CASE WHEN suspended THEN suspended_at ELSE ? END
                WHERE session_key = ?""", reason.code(), Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public List<SessionEntry> listResumePending(Optional<Platform> platform) {
        String sql = resumePendingQuery(platform.isPresent());
        Object[] args = platform.map(p -> new Object[] {p.id()}).orElse(new Object[0]);
        return pool.read("resume-pending sessions", c -> c.listReadable(sql, SessionRows::decode, SessionRows::subject, args));
    }

    /** Through the partial index sessions_resume_pending, already in the wanted order. */
    static String resumePendingQuery(boolean byPlatform) {
        return "SELECT " + SessionRows.COLUMNS + " FROM sessions WHERE resume_pending AND NOT suspended"
                + (byPlatform ? " AND platform = ?" : "") + " ORDER BY resume_marked_at, session_key";
    }

    @Override
    public List<SessionEntry> search(SessionQuery query) {
        Search search = Search.of(query);
        return pool.read("session search", c -> c.listReadable(search.sql(), SessionRows::decode, SessionRows::subject, search.args()));
    }

    /** A page of lanes as SQL: newest activity first through sessions_by_updated (or sessions_suspended). */
    record Search(String sql, Object[] args) {
        static Search of(SessionQuery query) {
            Objects.requireNonNull(query, "query");
            StringBuilder sql = new StringBuilder("SELECT " + SessionRows.COLUMNS + " FROM sessions WHERE TRUE");
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

    @Override
    public void countInterruption(Collection<SessionKey> keys) {
        // one update per key (a key listed twice counts twice), in key order so that two sweeps never deadlock
        List<SessionKey> lanes = keys.stream().sorted(Comparator.comparing(SessionKey::value)).toList();
        if (lanes.isEmpty()) {
            return;
        }
        pool.write("interruption count of " + lanes.size() + " session(s)", c -> {
            for (SessionKey key : lanes) {
                c.update(COUNT_INTERRUPTION, key.value());
            }
            return null;
        });
    }

    @Override
    public void clearInterruptions(SessionKey key) {
        Objects.requireNonNull(key, "key");
        pool.write("session " + key, c -> c.update(
                "UPDATE sessions SET interrupted_restarts = 0 WHERE session_key = ? AND interrupted_restarts > 0", key.value()));
    }

    @Override
    public List<SessionKey> suspendStuckLoops(int threshold) {
        if (threshold < 1) {
            throw new IllegalArgumentException("store - stuck-loop threshold " + threshold + " must be at least 1");
        }
        return pool.write("stuck-loop sweep", c -> {
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
                log.warn("store - suspended session {}: {} consecutive restarts cut off its turns (threshold {}), a likely stuck loop",
                        s.key(), s.count(), threshold);
                try {
                    keys.add(new SessionKey(s.key()));
                } catch (IllegalArgumentException e) {
                    log.warn("store - the suspended session's stored key {} is unreadable ({})", RowDecodeException.abbreviate(s.key()),
                            e.getMessage());
                }
            }
            keys.sort(Comparator.comparing(SessionKey::value));
            return keys;
        });
    }

    @Override
    public void addUsage(SessionKey key, long inputTokens, long outputTokens) {
        Objects.requireNonNull(key, "key");
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("store - token usage must not be negative (" + inputTokens + " in, " + outputTokens + " out)");
        }
        pool.write("session " + key, c -> c.update(
                "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE session_key = ?",
                inputTokens, outputTokens, key.value()));
    }

    @Override
    public long count() {
        return pool.read("session count", c -> c.scalar("SELECT COUNT(*) FROM sessions"));
    }
}
