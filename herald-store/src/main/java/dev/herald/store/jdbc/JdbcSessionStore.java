package dev.herald.store.jdbc;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.ResetReason;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SessionStore;
import dev.herald.core.transcript.EndReason;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session index, one row per lane: what is the same on both databases. A lane change follows the same
 * rules everywhere (a suspended lane starts a fresh transcript, a lane follows its transcript's compression
 * chain); a dialect says how it runs work ({@link Transactions}), how a lane's read-modify-write keeps other
 * writers out, how it writes a lane's row and claims a new transcript id, and the SQL of the marks, the
 * listings and the sweeps (SQLite keeps flags as 0/1 integers, PostgreSQL as booleans).
 */
public abstract class JdbcSessionStore<C extends JdbcConn> implements SessionStore {
    private final Logger log = LoggerFactory.getLogger(getClass());
    protected final Transactions<C> tx;
    protected final Clock clock;
    private final String forUpdate;
    private final String newestChild;
    private final String mark;
    private final String whileRunning;

    /**
     * @param forUpdate   appended to the SELECTs of a lane's read-modify-write: a row lock, or empty where
     *                    writes are serial anyway
     * @param newestChild selects the id of a session's newest compression child ({@link TranscriptTables#tip})
     * @param mark        marks an unsuspended lane resume-pending: parameters reason, mark time, key
     * @param whileRunning appended to {@code mark} for {@link #markResumePendingWhileRunning}: a condition that the
     *                    turn (one more parameter, its id) is RUNNING, holding it there until the mark commits
     *                    where writes are not serial
     */
    protected JdbcSessionStore(Transactions<C> tx, Clock clock, String forUpdate, String newestChild, String mark,
            String whileRunning) {
        this.tx = tx;
        this.clock = clock;
        this.forUpdate = forUpdate;
        this.newestChild = newestChild;
        this.mark = mark;
        this.whileRunning = whileRunning;
    }

    @Override
    public final boolean markResumePending(SessionKey key, ResumeReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return tx.write("session " + key, c -> c.update(mark, reason.code(), Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public final boolean markResumePendingWhileRunning(SessionKey key, long turnId, ResumeReason reason) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        return tx.write("session " + key,
                c -> c.update(mark + whileRunning, reason.code(), Micros.of(Micros.now(clock)), key.value(), turnId) == 1);
    }

    /** Creates a live transcript session with a new unique id for the lane and returns the id. */
    protected abstract String newTranscript(C c, String key, Instant now) throws SQLException;

    /** Stores the row of a lane that had none when this transaction looked. */
    protected abstract void insertLane(C c, SessionEntry lane) throws SQLException;

    /** Overwrites the whole row of a lane that this transaction found (and locked, where the dialect locks). */
    protected abstract void replaceLane(C c, SessionEntry lane) throws SQLException;

    /** Resume-pending lanes, oldest mark first, of one platform ({@code ?}) when {@code byPlatform}. */
    protected abstract String resumePendingSql(boolean byPlatform);

    /** The lanes {@link #countInterruption} counts, in the order it updates them: a key listed twice counts twice. */
    protected abstract List<SessionKey> interruptionOrder(Collection<SessionKey> keys);

    /**
     * Suspends every lane whose interruption counter reached {@code threshold} (at least 1) and clears the
     * counter; returns the lanes it newly suspended, in key order, each reported by {@link #reportStuck}.
     */
    protected abstract List<SessionKey> suspendStuck(C c, int threshold) throws SQLException;

    @Override
    public final SessionEntry getOrCreate(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        return tx.write("session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<SessionEntry> stored = SessionTable.find(c, key, SessionTable.FIND + forUpdate);
            if (stored.isEmpty()) {
                return create(c, key, origin, now);
            }
            SessionEntry entry = stored.get();
            String tip = TranscriptTables.tip(c, newestChild, entry.sessionId());
            if (entry.suspended()) {
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

    @Override
    public final Optional<SessionEntry> find(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.read("session " + key, c -> SessionTable.find(c, key));
    }

    @Override
    public final SessionEntry reset(SessionKey key, SessionSource origin) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        return tx.write("session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<String> current = c.one("SELECT session_id FROM sessions WHERE session_key = ?" + forUpdate,
                    rs -> rs.getString(1), key.value());
            if (current.isEmpty()) {
                return create(c, key, origin, now);
            }
            TranscriptTables.end(c, TranscriptTables.tip(c, newestChild, current.get()), EndReason.SESSION_RESET, now);
            return restart(c, key, origin, now, null);
        });
    }

    /** A new lane with its first live transcript. */
    private SessionEntry create(C c, SessionKey key, SessionSource origin, Instant now) throws SQLException {
        SessionEntry fresh = fresh(key, newTranscript(c, key.value(), now), origin, now, null);
        insertLane(c, fresh);
        return fresh;
    }

    /** Points an existing lane at a new live transcript with a clean continuity state. */
    private SessionEntry restart(C c, SessionKey key, SessionSource origin, Instant now, ResetReason autoReset) throws SQLException {
        SessionEntry fresh = fresh(key, newTranscript(c, key.value(), now), origin, now, autoReset);
        replaceLane(c, fresh);
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
        String displayName = origin.chatName() != null ? origin.chatName() : e.displayName();
        c.update("""
                UPDATE sessions SET session_id = ?, updated_at = ?, origin = ?, display_name = ?, platform = ?, chat_type = ?
                WHERE session_key = ?""", sessionId, Micros.of(now), Json.source(origin), displayName,
                origin.platform().id(), origin.chatType().wire(), e.key().value());
        return new SessionEntry(e.key(), sessionId, e.createdAt(), now, origin, displayName, origin.platform(),
                origin.chatType(), e.suspendReason(), e.suspendedAt(), e.wasAutoReset(), e.autoResetReason(), e.resumePending(),
                e.resumeReason(), e.lastResumeMarkedAt(), e.interruptedRestarts(), e.inputTokens(), e.outputTokens(), e.title(),
                e.hiddenAt());
    }

    @Override
    public final boolean rename(SessionKey key, String title) {
        Objects.requireNonNull(key, "key");
        String t = title == null || title.isBlank() ? null : title.strip();
        String kept = t != null && t.length() > 200 ? t.substring(0, 200) : t;
        return tx.write("session " + key, c -> c.update(SessionTable.RENAME, kept, key.value()) == 1);
    }

    @Override
    public final boolean hide(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.write("session " + key, c -> c.update(SessionTable.HIDE, Micros.of(Micros.now(clock)), key.value()) == 1);
    }

    @Override
    public final List<SessionEntry> listResumePending(Optional<Platform> platform) {
        String sql = resumePendingSql(platform.isPresent());
        Object[] args = platform.map(p -> new Object[] {p.id()}).orElse(new Object[0]);
        return tx.read("resume-pending sessions", c -> c.listReadable(sql, SessionTable::decode, SessionTable::subject, args));
    }

    @Override
    public final void countInterruption(Collection<SessionKey> keys) {
        List<SessionKey> lanes = interruptionOrder(keys);
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
    public final void clearInterruptions(SessionKey key) {
        Objects.requireNonNull(key, "key");
        tx.write("session " + key, c -> c.update(
                "UPDATE sessions SET interrupted_restarts = 0 WHERE session_key = ? AND interrupted_restarts > 0", key.value()));
    }

    @Override
    public final List<SessionKey> suspendStuckLoops(int threshold) {
        if (threshold < 1) {
            throw new IllegalArgumentException("store - stuck-loop threshold " + threshold + " must be at least 1");
        }
        return tx.write("stuck-loop sweep", c -> suspendStuck(c, threshold));
    }

    /**
     * Logs a lane the stuck-loop sweep suspended and adds its key to {@code keys}; a stored key that cannot be
     * read is logged instead of added.
     */
    protected final void reportStuck(String key, int count, int threshold, List<SessionKey> keys) {
        log.warn("store - suspended session {}: {} consecutive restarts cut off its turns (threshold {}), a likely stuck loop",
                key, count, threshold);
        try {
            keys.add(new SessionKey(key));
        } catch (IllegalArgumentException e) {
            log.warn("store - the suspended session's stored key {} is unreadable ({})", RowDecodeException.abbreviate(key), e.getMessage());
        }
    }

    @Override
    public final void addUsage(SessionKey key, long inputTokens, long outputTokens) {
        Objects.requireNonNull(key, "key");
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("store - token usage must not be negative (" + inputTokens + " in, " + outputTokens + " out)");
        }
        tx.write("session " + key, c -> c.update(
                "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE session_key = ?",
                inputTokens, outputTokens, key.value()));
    }

    @Override
    public final long count() {
        return tx.read("session count", c -> c.scalar("SELECT COUNT(*) FROM sessions"));
    }
}
