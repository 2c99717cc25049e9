package dev.herald.store.jdbc;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.Conversation;
import dev.herald.core.session.PurgeResult;
import dev.herald.core.session.ResetReason;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SessionQuery;
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
 * The session index, one row per lane, written once for both databases. A lane change follows the same rules
 * everywhere: a suspended lane starts a fresh transcript, a lane follows its transcript's compression chain.
 *
 * <p>Concurrency. A lane's read-modify-write ({@link #getOrCreate}, {@link #reset}) reads its row with the dialect's
 * row lock (SQLite needs none: one writer); creating a lane inserts with {@code ON CONFLICT DO NOTHING} and, when
 * another writer created it first, rolls back and runs again ({@link Dialect#lostRace}); the marks are single
 * conditional UPDATEs; sweeps over several lanes touch them in key order. Flags are booleans in the SQL (SQLite
 * stores them as 0 and 1) and partial indexes are declared on the bare flag, so one statement uses its index on
 * both databases.
 */
public class JdbcSessionStore<C extends JdbcConn> implements SessionStore {
    /** Resume-pending lanes, oldest mark first, through the partial index sessions_resume_pending. */
    static final String RESUME_PENDING = "SELECT " + SessionTable.READ
            + " FROM sessions WHERE resume_pending AND NOT suspended%s ORDER BY resume_marked_at, session_key";
    /** Marks an unsuspended lane resume-pending: parameters reason, mark time, key. */
    static final String MARK = """
            UPDATE sessions SET resume_pending = TRUE, resume_reason = ?, resume_marked_at = ?
            WHERE session_key = ? AND NOT suspended""";
    /** Lanes at the stuck-loop threshold, through the partial index sessions_interrupted. */
    public static final String STUCK = """
            SELECT session_key, interrupted_restarts, suspended FROM sessions
            WHERE interrupted_restarts > 0 AND interrupted_restarts >= ?""";
    /** Suspends one stuck lane (keeping the first reason of one suspended before) and clears its counter. */
    public static final String SUSPEND_STUCK = """
            UPDATE sessions SET suspended = TRUE, interrupted_restarts = 0,
                suspend_reason = CASE WHEN suspended THEN suspend_reason ELSE 'stuck_loop' END,
                suspended_at = CASE WHEN suspended THEN suspended_at ELSE ? END
            WHERE session_key = ?""";

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final Transactions<C> tx;
    private final Clock clock;
    private final Dialect dialect;
    private final String newestChild;
    private final HistoryCache cache;

    public JdbcSessionStore(Transactions<C> tx, Dialect dialect, Clock clock) {
        this(tx, dialect, clock, new HistoryCache());
    }

    /** With the transcript cache of the transcript store, which a purge empties. */
    public JdbcSessionStore(Transactions<C> tx, Dialect dialect, Clock clock, HistoryCache cache) {
        this.tx = tx;
        this.cache = Objects.requireNonNull(cache, "cache");
        this.dialect = dialect;
        this.clock = clock;
        this.newestChild = TranscriptTables.newestChild(dialect);
    }

    /** The listing of resume-pending lanes, of one platform ({@code ?}) when {@code byPlatform}. */
    public static String resumePendingQuery(boolean byPlatform) {
        return RESUME_PENDING.formatted(byPlatform ? " AND platform = ?" : "");
    }

    /** The stuck-loop sweep's read of the lanes at the threshold, locked where the dialect locks rows. */
    public String stuckQuery() {
        return STUCK + dialect.lockForUpdate();
    }

    @Override
    public boolean markResumePending(SessionKey key, ResumeReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return tx.write("session " + key, c -> c.update(MARK, reason.code(), Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    /**
     * The mark's condition that the turn is RUNNING holds the turn row where the dialect locks (PostgreSQL: FOR SHARE
     * waits for a reply being recorded and re-reads the turn; a reply recorded later waits for the mark); with one
     * writer the turn cannot record its reply between the check and the mark.
     */
    @Override
    public boolean markResumePendingWhileRunning(SessionKey key, long turnId, ResumeReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        String sql = MARK + " AND EXISTS (SELECT 1 FROM turns WHERE id = ? AND session_key = sessions.session_key AND state = 'RUNNING'"
                + dialect.lockForShare() + ")";
        return tx.write("session " + key, c -> c.update(sql, reason.code(), Micros.of(Micros.now(clock)), key.value(), turnId) == 1);
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

    @Override
    public List<SessionEntry> search(SessionQuery query) {
        Search search = Search.of(query);
        return tx.read("session search", c -> c.listReadable(search.sql(), SessionTable::decode, SessionTable::subject, search.args()));
    }

    /** A page of lanes as SQL: newest activity first, through sessions_by_updated (or sessions_suspended). */
    public record Search(String sql, Object[] args) {
        public static Search of(SessionQuery query) {
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
                args.add("%" + text.toLowerCase(Locale.ROOT).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
            });
            sql.append(" ORDER BY updated_at DESC, session_key LIMIT ? OFFSET ?");
            args.add(query.limit());
            args.add(query.offset());
            return new Search(sql.toString(), args.toArray());
        }
    }

    /** Creates the lane's row; when another writer created it meanwhile, the dialect's retry rule applies. */
    private void insertLane(C c, SessionEntry lane) throws SQLException {
        if (!SessionRows.insertIfAbsent(c, lane)) {
            throw dialect.lostRace().apply("session " + lane.key() + " was created by another writer meanwhile");
        }
    }

    @Override
    public SessionEntry getOrCreate(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        return tx.write("session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<SessionEntry> stored = SessionTable.find(c, key, SessionTable.FIND + dialect.lockForUpdate());
            if (stored.isEmpty()) {
                return create(c, key, origin, now);
            }
            SessionEntry entry = stored.get();
            String tip = TranscriptTables.tip(c, newestChild, entry.sessionId());
            if (entry.suspended()) {
                c.update(LaneConversations.KEEP_TITLE, entry.title(), tip);
                TranscriptTables.end(c, tip, EndReason.SUSPENDED, now);
                log.info("store - session {} was suspended; started a fresh transcript (old {})", key, tip);
                return restart(c, key, origin, now, ResetReason.SUSPENDED);
            }
            if (!tip.equals(entry.sessionId())) {
                log.info("store - session {} follows compression {} -> {}", key, entry.sessionId(), tip);
            }
            return touch(c, entry, tip, origin, now);
        });
    }

    /**
     * A lane as it is (stored, not suspended, no compression to follow) is read, not written: the turn's start bumps it
     * (JdbcTurnStore, {@link SessionTable#TOUCH_BY_TURN}). Anything else is {@link #getOrCreate}'s write, which reads the
     * row again under its lock, so a lane changed in between is handled there.
     */
    @Override
    public SessionEntry forTurn(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        Optional<SessionEntry> asItIs = tx.read("session " + key, c -> {
            Optional<SessionEntry> stored = SessionTable.find(c, key);
            return stored.isPresent() && !stored.get().suspended()
                    && TranscriptTables.tip(c, newestChild, stored.get().sessionId()).equals(stored.get().sessionId())
                    ? stored : Optional.<SessionEntry>empty();
        });
        return asItIs.map(e -> SessionTable.touched(e, e.sessionId(), origin, Micros.now(clock))).orElseGet(() -> getOrCreate(key, origin));
    }

    @Override
    public Optional<SessionEntry> find(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.read("session " + key, c -> SessionTable.find(c, key));
    }

    @Override
    public SessionEntry reset(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        return tx.write("session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<String[]> current = c.one("SELECT session_id, title FROM sessions WHERE session_key = ?" + dialect.lockForUpdate(),
                    rs -> new String[] {rs.getString(1), rs.getString(2)}, key.value());
            if (current.isEmpty()) {
                return create(c, key, origin, now);
            }
            String tip = TranscriptTables.tip(c, newestChild, current.get()[0]);
            c.update(LaneConversations.KEEP_TITLE, current.get()[1], tip); // listed by /sessions under the title it had
            TranscriptTables.end(c, tip, EndReason.SESSION_RESET, now);
            return restart(c, key, origin, now, null);
        });
    }

    /** A new lane with its first live transcript. */
    private SessionEntry create(C c, SessionKey key, SessionSource origin, Instant now) throws SQLException {
        SessionEntry fresh = fresh(key, TranscriptTables.newSession(c, key.value(), now), origin, now, null);
        insertLane(c, fresh);
        return fresh;
    }

    /** Points an existing lane at a new live transcript with a clean continuity state. */
    private SessionEntry restart(C c, SessionKey key, SessionSource origin, Instant now, ResetReason autoReset) throws SQLException {
        SessionEntry fresh = fresh(key, TranscriptTables.newSession(c, key.value(), now), origin, now, autoReset);
        SessionRows.replace(c, fresh);
        return fresh;
    }

    /** A lane pointing at a new live transcript with a clean continuity state, marked auto-reset when {@code autoReset} is set. */
    private static SessionEntry fresh(SessionKey key, String sessionId, SessionSource origin, Instant now, ResetReason autoReset) {
        SessionEntry fresh = SessionEntry.fresh(key, sessionId, origin, now);
        if (autoReset == null) {
            return fresh;
        }
        return new SessionEntry(key, sessionId, now, now, origin, fresh.displayName(), fresh.platform(), fresh.chatType(),
                null, null, true, autoReset, false, null, null, 0, 0, 0, null, null);
    }

    /** A lane was used: points it at {@code sessionId}, bumps its time and records the latest source. */
    private static SessionEntry touch(JdbcConn c, SessionEntry e, String sessionId, SessionSource origin, Instant now) throws SQLException {
        if (!sessionId.equals(e.sessionId())) {
            c.update("UPDATE sessions SET session_id = ? WHERE session_key = ?", sessionId, e.key().value());
        }
        SessionTable.touch(c, SessionTable.TOUCH_BY_KEY, origin, now, e.key().value());
        return SessionTable.touched(e, sessionId, origin, now);
    }

    @Override
    public final boolean rename(SessionKey key, String title) {
        Objects.requireNonNull(key, "key");
        String t = title == null || title.isBlank() ? null : title.strip();
        String kept = t != null && t.length() > 200 ? t.substring(0, 200) : t;
        return tx.write("session " + key, c -> c.update(SessionTable.RENAME, kept, key.value()) == 1);
    }

    @Override
    public List<Conversation> conversations(SessionKey key, int limit) {
        Objects.requireNonNull(key, "key");
        return tx.read("conversations of " + key, c -> LaneConversations.list(c, newestChild, key, limit));
    }

    @Override
    public Optional<SessionEntry> switchTo(SessionKey key, String sessionId) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(sessionId, "sessionId");
        Optional<SessionEntry> switched = tx.write("session " + key, c -> {
            Optional<SessionEntry> lane = SessionTable.find(c, key, SessionTable.FIND + dialect.lockForUpdate());
            return lane.isEmpty() ? Optional.<SessionEntry>empty()
                    : LaneConversations.switchTo(c, newestChild, lane.get(), sessionId, Micros.now(clock));
        });
        switched.ifPresent(e -> log.info("store - session {} now continues transcript {}", key, e.sessionId()));
        return switched;
    }

    @Override
    public final int reassignUser(dev.herald.core.platform.Platform platform, String fromUser, String toUser) {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(fromUser, "fromUser");
        Objects.requireNonNull(toUser, "toUser");
        // only rows whose origin names the user (as JSON writes it) are read and parsed; the parse decides
        String named = "%\"user_id\":" + Json.quoted(fromUser) + "%";
        if (!tx.read("sessions of " + platform + " user " + fromUser, c -> c.exists(
                "SELECT 1 FROM sessions WHERE platform = ? AND origin LIKE ?", platform.id(), named))) {
            return 0; // nothing to move: no write (this runs at every start)
        }
        int changed = tx.write("sessions of " + platform + " user " + fromUser, c -> {
            int n = 0;
            for (String[] row : c.list("SELECT session_key, origin FROM sessions WHERE platform = ? AND origin LIKE ?",
                    rs -> new String[] {rs.getString(1), rs.getString(2)}, platform.id(), named)) {
                SessionSource origin = Json.source(row[1], "sessions.origin");
                if (fromUser.equals(origin.userId())) {
                    SessionSource theirs = new SessionSource(origin.platform(), origin.chatId(), origin.chatType(), toUser,
                            origin.userName(), origin.threadId(), origin.chatName());
                    n += c.update("UPDATE sessions SET origin = ? WHERE session_key = ? AND origin = ?", Json.source(theirs), row[0], row[1]);
                }
            }
            return n;
        });
        if (changed > 0) {
            log.info("store - {} session(s) of {} user {} now belong to {}", changed, platform, fromUser, toUser);
        }
        return changed;
    }

    @Override
    public final boolean hide(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.write("session " + key, c -> c.update(SessionTable.HIDE, Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public boolean takeLease(SessionKey key, String node, boolean fromIdleHolder) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(node, "node");
        String sql = Leases.take("?", fromIdleHolder);
        String lock = Leases.lock("?", dialect.lockForUpdate());
        return tx.write("session " + key, c -> {
            if (lock != null) {
                c.one(lock, rs -> rs.getInt(1), key.value()); // the UPDATE below then sees every START of the lane committed
            }
            return c.update(sql, node, key.value(), node, node) == 1;
        });
    }

    @Override
    public Optional<String> leaseHolder(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.read("session " + key, c -> c.one("SELECT owner_node FROM sessions WHERE session_key = ?",
                rs -> Optional.ofNullable(rs.getString(1)), key.value())).flatMap(holder -> holder);
    }

    @Override
    public List<SessionKey> resumePendingOfGoneNodes(int limit) {
        return tx.read("resume-pending sessions of nodes that are gone", c -> c.listReadable(Leases.RESUME_PENDING_OF_GONE_NODES,
                rs -> {
                    String k = rs.getString(1);
                    return RowDecodeException.decoding("session_key", k, () -> new SessionKey(k));
                },
                SessionTable::subject, limit));
    }

    @Override
    public List<SessionEntry> listResumePending(Optional<Platform> platform) {
        String sql = resumePendingQuery(platform.isPresent());
        Object[] args = platform.map(p -> new Object[] {p.id()}).orElse(new Object[0]);
        return tx.read("resume-pending sessions", c -> c.listReadable(sql, SessionTable::decode, SessionTable::subject, args));
    }

    @Override
    public void countInterruption(Collection<SessionKey> keys) {
        // in key order, so that two writers counting lanes never deadlock; a key listed twice counts twice
        List<SessionKey> lanes = keys.stream().sorted(Comparator.comparing(SessionKey::value)).toList();
        if (lanes.isEmpty()) {
            return;
        }
        tx.write("interruption count of " + lanes.size() + " session(s)", c -> {
            for (SessionKey key : lanes) {
                c.update(SessionTable.COUNT_INTERRUPTION, key.value());
            }
            return null;
        });
    }

    @Override
    public void clearInterruptions(SessionKey key) {
        Objects.requireNonNull(key, "key");
        tx.write("session " + key, c -> c.update(
                "UPDATE sessions SET interrupted_restarts = 0 WHERE session_key = ? AND interrupted_restarts > 0", key.value()));
    }

    @Override
    public List<SessionKey> suspendStuckLoops(int threshold) {
        if (threshold < 1) {
            throw new IllegalArgumentException("store - stuck-loop threshold " + threshold + " must be at least 1");
        }
        return tx.write("stuck-loop sweep", c -> suspendStuck(c, threshold));
    }

    /**
     * Suspends every lane whose interruption counter reached {@code threshold} and clears the counter; returns the
     * lanes it newly suspended (a lane suspended before keeps its first reason and is not reported again), in key order.
     */
    private List<SessionKey> suspendStuck(C c, int threshold) throws SQLException {
        record Stuck(String key, int count, boolean suspended) {
        }
        List<Stuck> stuck = new ArrayList<>(c.list(stuckQuery(), rs -> new Stuck(rs.getString(1), rs.getInt(2), rs.getBoolean(3)),
                threshold));
        stuck.sort(Comparator.comparing(Stuck::key));
        long now = Micros.of(Micros.now(clock));
        List<SessionKey> keys = new ArrayList<>();
        for (Stuck s : stuck) {
            c.update(SUSPEND_STUCK, now, s.key());
            if (!s.suspended()) {
                reportStuck(s.key(), s.count(), threshold, keys);
            }
        }
        return keys;
    }

    /**
     * Logs a lane the stuck-loop sweep suspended and adds its key to {@code keys}; a stored key that cannot be
     * read is logged instead of added.
     */
    private void reportStuck(String key, int count, int threshold, List<SessionKey> keys) {
        log.warn("store - suspended session {}: {} consecutive restarts cut off its turns (threshold {}), a likely stuck loop",
                key, count, threshold);
        try {
            keys.add(new SessionKey(key));
        } catch (IllegalArgumentException e) {
            log.warn("store - the suspended session's stored key {} is unreadable ({})", RowDecodeException.abbreviate(key), e.getMessage());
        }
    }

    @Override
    public void addUsage(SessionKey key, long inputTokens, long outputTokens) {
        Objects.requireNonNull(key, "key");
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("store - token usage must not be negative (" + inputTokens + " in, " + outputTokens + " out)");
        }
        tx.writeSoon("session " + key, c -> c.update(
                "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE session_key = ?",
                inputTokens, outputTokens, key.value()), null);
    }

    @Override
    public long count() {
        return tx.read("session count", c -> c.scalar("SELECT COUNT(*) FROM sessions"));
    }

    @Override
    public final PurgeResult purge(SessionKey key) {
        Objects.requireNonNull(key, "key");
        try {
            return tx.write("session " + key, c -> new LanePurge(dialect).purge(c, key));
        } finally {
            cache.clear(); // the copies would still be checked, but a purged transcript is not kept in memory
        }
    }
}
