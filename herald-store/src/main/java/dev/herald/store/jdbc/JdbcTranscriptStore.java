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
 * Transcripts, the same on both databases: appends give each session a dense {@code seq}, loads read one
 * session by its index. A dialect says how it runs work ({@link Transactions}), how it keeps appends to
 * and ends of one session apart, how it claims a session id (creating a session, starting a compression
 * child), and how it finds a session's newest compression child.
 */
public abstract class JdbcTranscriptStore<C extends JdbcConn> implements TranscriptStore {
    private final Transactions<C> tx;
    private final String appendGuard;
    private final String findForChange;
    private final String newestChild;

    /**
     * @param lockSession appended to a SELECT of a session's row to lock it against concurrent appends and
     *                    ends until the transaction ends, or empty where writes are serial anyway
     * @param newestChild selects the id of a session's newest compression child ({@link TranscriptTables#tip})
     */
    protected JdbcTranscriptStore(Transactions<C> tx, String lockSession, String newestChild) {
        this.tx = tx;
        this.appendGuard = TranscriptTables.SESSION_EXISTS + lockSession;
        this.findForChange = TranscriptTables.FIND_SESSION + lockSession;
        this.newestChild = newestChild;
    }

    /**
     * Inserts a live session with the caller's id; {@link IllegalStateException} when the id is taken,
     * {@code StoreException.notFound} when the parent is set and unknown.
     */
    protected abstract void createSession(C c, String sessionId, String sessionKey, String parentSessionId, Instant startedAt)
            throws SQLException;

    /**
     * Ends {@code parent} (live, or ended by compression) with {@link EndReason#COMPRESSION} and inserts the
     * live child {@code childId} under the parent's lane, started {@code at}; {@link IllegalStateException}
     * when the child id is taken.
     */
    protected abstract void startChild(C c, TranscriptSession parent, String childId, Instant at) throws SQLException;

    @Override
    public final void createSession(String sessionId, String sessionKey, String parentSessionId, Instant startedAt) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(startedAt, "startedAt");
        tx.write("transcript session " + sessionId, c -> {
            createSession(c, sessionId, sessionKey, parentSessionId, startedAt);
            return null;
        });
    }

    @Override
    public final Optional<TranscriptSession> session(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.read("transcript session " + sessionId, c -> TranscriptTables.findSession(c, sessionId));
    }

    @Override
    public final boolean endSession(String sessionId, EndReason reason, Instant at) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(at, "at");
        return tx.write("transcript session " + sessionId, c -> TranscriptTables.end(c, sessionId, reason, at));
    }

    @Override
    public final TranscriptRow append(String sessionId, TranscriptRow row) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(row, "row");
        return tx.write("transcript " + sessionId, c -> TranscriptTables.append(c, appendGuard, sessionId, row));
    }

    @Override
    public final List<TranscriptRow> load(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.read("transcript " + sessionId, c -> TranscriptTables.load(c, sessionId));
    }

    @Override
    public final long rowCount(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.read("transcript " + sessionId, c -> TranscriptTables.rowCount(c, sessionId));
    }

    @Override
    public final String compressionTip(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.read("transcript session " + sessionId, c -> TranscriptTables.tip(c, newestChild, sessionId));
    }

    @Override
    public final TranscriptSession continueInChild(String parentSessionId, String childSessionId, Instant at) {
        Objects.requireNonNull(parentSessionId, "parentSessionId");
        Objects.requireNonNull(childSessionId, "childSessionId");
        Objects.requireNonNull(at, "at");
        Instant start = at.truncatedTo(ChronoUnit.MICROS);
        return tx.write("transcript session " + parentSessionId, c -> {
            TranscriptSession parent = TranscriptTables.findSession(c, parentSessionId, findForChange)
                    .orElseThrow(() -> StoreException.notFound("transcript session " + parentSessionId + " (to continue in "
                            + childSessionId + ")"));
            if (parent.ended() && parent.endReason() != EndReason.COMPRESSION) {
                throw new IllegalStateException("store - transcript session " + parentSessionId + " already ended ("
                        + parent.endReason().code() + "); it cannot continue in " + childSessionId);
            }
            startChild(c, parent, childSessionId, start);
            return new TranscriptSession(childSessionId, parent.sessionKey(), parentSessionId, start, null, null);
        });
    }
}
