package dev.herald.store.sqlite;

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
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The session index on SQLite: one row per lane, every change one short write transaction. */
final class SqliteSessionStore implements SessionStore {
    private static final Logger log = LoggerFactory.getLogger(SqliteSessionStore.class);

    // Both go through the partial index sessions_interrupted (no ORDER BY: sorting by key would scan every lane).
    static final String STUCK = """
            SELECT session_key, interrupted_restarts FROM sessions
            WHERE interrupted_restarts > 0 AND interrupted_restarts >= ? AND suspended = 0""";
    static final String SUSPEND_STUCK = """
            UPDATE sessions SET suspended = 1, interrupted_restarts = 0,
                suspend_reason = CASE WHEN suspended = 1 THEN suspend_reason ELSE 'stuck_loop' END,
                suspended_at = CASE WHEN suspended = 1 THEN suspended_at ELSE ? END
            WHERE interrupted_restarts > 0 AND interrupted_restarts >= ?""";

    private final SqliteWriter writer;
    private final ReadPool readers;
    private final Clock clock;

    SqliteSessionStore(SqliteWriter writer, ReadPool readers, Clock clock) {
        this.writer = writer;
        this.readers = readers;
        this.clock = clock;
    }

    @Override
    public SessionEntry getOrCreate(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        return writer.write("session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<SessionEntry> stored = SessionRows.find(c, key);
            if (stored.isEmpty()) {
                return startFresh(c, key, origin, now, null);
            }
            SessionEntry entry = stored.get();
            String tip = TranscriptSql.tip(c, entry.sessionId());
            if (entry.suspended()) {
                TranscriptSql.end(c, tip, EndReason.SUSPENDED, now);
                log.info("store - session {} was suspended; started a fresh transcript (old {})", key, tip);
                return startFresh(c, key, origin, now, ResetReason.SUSPENDED);
            }
            if (!tip.equals(entry.sessionId())) {
                log.info("store - session {} follows compression {} -> {}", key, entry.sessionId(), tip);
            }
            return SessionRows.touch(c, entry, tip, origin, now);
        });
    }

    /** Points the lane at a new live transcript with a clean continuity state. */
    private static SessionEntry startFresh(SqlConn c, SessionKey key, SessionSource origin, Instant now, ResetReason autoReset)
            throws SQLException {
        String sessionId = TranscriptSql.newSession(c, key.value(), now);
        SessionEntry fresh = SessionEntry.fresh(key, sessionId, origin, now);
        if (autoReset != null) {
            fresh = new SessionEntry(key, sessionId, now, now, origin, fresh.displayName(), fresh.platform(), fresh.chatType(),
                    null, null, true, autoReset, false, null, null, 0, 0, 0);
        }
        SessionRows.put(c, fresh);
        return fresh;
    }

    @Override
    public Optional<SessionEntry> find(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return readers.read("session " + key, c -> SessionRows.find(c, key));
    }

    @Override
    public SessionEntry reset(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        return writer.write("session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<String> current = c.one("SELECT session_id FROM sessions WHERE session_key = ?", rs -> rs.getString(1), key.value());
            if (current.isPresent()) {
                TranscriptSql.end(c, TranscriptSql.tip(c, current.get()), EndReason.SESSION_RESET, now);
            }
            return startFresh(c, key, origin, now, null);
        });
    }

    @Override
    public boolean markResumePending(SessionKey key, ResumeReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return writer.write("session " + key, c -> c.update("""
                UPDATE sessions SET resume_pending = 1, resume_reason = ?, resume_marked_at = ?
                WHERE session_key = ? AND suspended = 0""", reason.code(), Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public boolean clearResumePending(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return writer.write("session " + key, c -> c.update("""
                UPDATE sessions SET resume_pending = 0, resume_reason = NULL, resume_marked_at = NULL
                WHERE session_key = ? AND resume_pending = 1""", key.value()) == 1);
    }

    @Override
    public boolean suspend(SessionKey key, SuspendReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return writer.write("session " + key, c -> c.update("""
                UPDATE sessions SET suspended = 1,
                    suspend_reason = CASE WHEN suspended = 1 THEN suspend_reason ELSE ? END,
                    suspended_at = CASE WHEN suspended = 1 THEN suspended_at ELSE ? END
                WHERE session_key = ?""", reason.code(), Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public List<SessionEntry> listResumePending(Optional<Platform> platform) {
        String sql = resumePendingQuery(platform.isPresent());
        Object[] args = platform.map(p -> new Object[] {p.id()}).orElse(new Object[0]);
        return readers.read("resume-pending sessions", c -> c.listReadable(sql, SessionRows::decode, SessionRows::subject, args));
    }

    @Override
    public List<SessionEntry> search(SessionQuery query) {
        StringBuilder sql = new StringBuilder("SELECT " + SessionRows.COLUMNS + " FROM sessions WHERE 1 = 1");
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
        return readers.read("session search", c -> c.listReadable(sql.toString(), SessionRows::decode, SessionRows::subject, args.toArray()));
    }

    /** Through the partial index sessions_resume_pending. */
    static String resumePendingQuery(boolean byPlatform) {
        return "SELECT " + SessionRows.COLUMNS + " FROM sessions WHERE resume_pending = 1 AND suspended = 0"
                + (byPlatform ? " AND platform = ?" : "") + " ORDER BY resume_marked_at, session_key";
    }

    @Override
    public void countInterruption(Collection<SessionKey> keys) {
        List<SessionKey> lanes = List.copyOf(keys);
        if (lanes.isEmpty()) {
            return;
        }
        writer.write("interruption count of " + lanes.size() + " session(s)", c -> {
            for (SessionKey key : lanes) {
                c.update("UPDATE sessions SET interrupted_restarts = interrupted_restarts + 1 WHERE session_key = ?", key.value());
            }
            return null;
        });
    }

    @Override
    public void clearInterruptions(SessionKey key) {
        Objects.requireNonNull(key, "key");
        writer.write("session " + key, c -> c.update(
                "UPDATE sessions SET interrupted_restarts = 0 WHERE session_key = ? AND interrupted_restarts > 0", key.value()));
    }

    @Override
    public List<SessionKey> suspendStuckLoops(int threshold) {
        if (threshold < 1) {
            throw new IllegalArgumentException("store - stuck-loop threshold " + threshold + " must be at least 1");
        }
        return writer.write("stuck-loop sweep", c -> {
            record Stuck(String key, int count) {
            }
            List<Stuck> stuck = new ArrayList<>(c.list(STUCK, rs -> new Stuck(rs.getString(1), rs.getInt(2)), threshold));
            stuck.sort(java.util.Comparator.comparing(Stuck::key));
            c.update(SUSPEND_STUCK, Micros.of(Micros.now(clock)), threshold);
            List<SessionKey> keys = new ArrayList<>(stuck.size());
            for (Stuck s : stuck) {
                log.warn("store - suspended session {}: {} consecutive restarts cut off its turns (threshold {}), a likely stuck loop",
                        s.key(), s.count(), threshold);
                try {
                    keys.add(new SessionKey(s.key()));
                } catch (IllegalArgumentException e) {
                    log.warn("store - the suspended session's stored key {} is unreadable ({})", RowDecodeException.abbreviate(s.key()), e.getMessage());
                }
            }
            return keys;
        });
    }

    @Override
    public void addUsage(SessionKey key, long inputTokens, long outputTokens) {
        Objects.requireNonNull(key, "key");
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("store - token usage must not be negative (" + inputTokens + " in, " + outputTokens + " out)");
        }
        writer.write("session " + key, c -> c.update(
                "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE session_key = ?",
                inputTokens, outputTokens, key.value()));
    }

    @Override
    public long count() {
        return readers.read("session count", c -> c.scalar("SELECT COUNT(*) FROM sessions"));
    }
}
