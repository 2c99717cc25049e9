package dev.herald.store.jdbc;

import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.EndReason;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.transcript.TranscriptSession;
import dev.herald.core.transcript.TranscriptStore;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Transcripts, written once for both databases: appends give each session a dense {@code seq} (appends to and ends
 * of one session are kept apart by the dialect's append lock, or by SQLite's one writer), loads read one session by
 * its index, and session ids are claimed by the primary key ({@code ON CONFLICT DO NOTHING}), not by a check before.
 * Loads go through the {@link HistoryCache} shared with the turn and session stores: a transcript read before is
 * checked against the store's highest seq and only the rows it lacks are read.
 */
public final class JdbcTranscriptStore<C extends JdbcConn> implements TranscriptStore {
    private final Transactions<C> tx;
    private final String appendGuard;
    private final String findForChange;
    private final String newestChild;
    private final HistoryCache cache;

    public JdbcTranscriptStore(Transactions<C> tx, Dialect dialect) {
        this(tx, dialect, new HistoryCache());
    }

    public JdbcTranscriptStore(Transactions<C> tx, Dialect dialect, HistoryCache cache) {
        this.tx = tx;
        this.cache = Objects.requireNonNull(cache, "cache");
        this.appendGuard = TranscriptTables.SESSION_EXISTS + dialect.lockForAppend();
        this.findForChange = TranscriptTables.FIND_SESSION + dialect.lockForAppend();
        this.newestChild = TranscriptTables.newestChild(dialect);
    }

    /** Inserts a live session with the caller's id: the id must be unused, and the parent, when set, must exist. */
    private static void create(JdbcConn c, String sessionId, String sessionKey, String parentSessionId, Instant startedAt)
            throws SQLException {
        if (parentSessionId != null && !TranscriptTables.exists(c, parentSessionId)) {
            throw StoreException.notFound("parent transcript session " + parentSessionId + " of " + sessionId);
        }
        if (!TranscriptTables.insertSession(c, sessionId, sessionKey, parentSessionId, startedAt)) {
            throw new IllegalStateException("store - transcript session " + sessionId + " already exists; pick a new id");
        }
    }

    @Override
    public void createSession(String sessionId, String sessionKey, String parentSessionId, Instant startedAt) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(startedAt, "startedAt");
        tx.write("transcript session " + sessionId, c -> {
            create(c, sessionId, sessionKey, parentSessionId, startedAt);
            return null;
        });
    }

    @Override
    public Optional<TranscriptSession> session(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.read("transcript session " + sessionId, c -> TranscriptTables.findSession(c, sessionId));
    }

    @Override
    public boolean endSession(String sessionId, EndReason reason, Instant at) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(at, "at");
        cache.invalidate(sessionId);
        return tx.write("transcript session " + sessionId, c -> TranscriptTables.end(c, sessionId, reason, at));
    }

    @Override
    public TranscriptRow append(String sessionId, TranscriptRow row) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(row, "row");
        TranscriptRow stored = tx.write("transcript " + sessionId, c -> TranscriptTables.append(c, appendGuard, sessionId, row));
        cache.appended(sessionId, stored);
        return stored;
    }

    @Override
    public void appendSoon(String sessionId, TranscriptRow row) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(row, "row");
        tx.writeSoon("transcript " + sessionId, c -> TranscriptTables.append(c, appendGuard, sessionId, row),
                stored -> cache.appended(sessionId, stored));
    }

    @Override
    public List<TranscriptRow> load(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.read("transcript " + sessionId, c -> {
            HistoryCache.Rows known = cache.get(sessionId);
            if (known != null) {
                long stored = TranscriptTables.rowCount(c, sessionId);
                if (stored == known.lastSeq()) {
                    return known;
                }
                if (stored > known.lastSeq()) {
                    List<TranscriptRow> more = TranscriptTables.loadAfter(c, sessionId, known.lastSeq());
                    if (!more.isEmpty() && more.get(0).seq() == known.lastSeq() + 1) {
                        return cache.loaded(sessionId, known, more);
                    }
                }
            }
            return cache.loaded(sessionId, null, TranscriptTables.load(c, sessionId));
        });
    }

    /** The cache of transcripts this store shares with the turn and session stores. */
    public HistoryCache cache() {
        return cache;
    }

    @Override
    public long rowCount(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.read("transcript " + sessionId, c -> TranscriptTables.rowCount(c, sessionId));
    }

    @Override
    public String compressionTip(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.read("transcript session " + sessionId, c -> TranscriptTables.tip(c, newestChild, sessionId));
    }

    @Override
    public TranscriptSession continueInChild(String parentSessionId, String childSessionId, Instant at) {
        Objects.requireNonNull(parentSessionId, "parentSessionId");
        Objects.requireNonNull(childSessionId, "childSessionId");
        Objects.requireNonNull(at, "at");
        Instant start = at.truncatedTo(ChronoUnit.MICROS);
        cache.invalidate(parentSessionId);
        return tx.write("transcript session " + parentSessionId, c -> {
            TranscriptSession parent = TranscriptTables.findSession(c, parentSessionId, findForChange)
                    .orElseThrow(() -> StoreException.notFound("transcript session " + parentSessionId + " (to continue in "
                            + childSessionId + ")"));
            if (parent.ended() && parent.endReason() != EndReason.COMPRESSION) {
                throw new IllegalStateException("store - transcript session " + parentSessionId + " already ended ("
                        + parent.endReason().code() + "); it cannot continue in " + childSessionId);
            }
            if (!TranscriptTables.insertSession(c, childSessionId, parent.sessionKey(), parent.id(), start)) {
                throw new IllegalStateException("store - transcript session " + childSessionId + " already exists; pick a new id");
            }
            TranscriptTables.end(c, parent.id(), EndReason.COMPRESSION, start);
            return new TranscriptSession(childSessionId, parent.sessionKey(), parentSessionId, start, null, null);
        });
    }
}
