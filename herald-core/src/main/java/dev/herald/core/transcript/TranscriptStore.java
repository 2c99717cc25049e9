package dev.herald.core.transcript;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable transcripts: ordered rows per session id, and the session ids' lineage.
 *
 * <p>Appends are durable when the call returns, in order, each with its timestamp; {@code seq} is
 * dense per session. Loading is by session id and never touches other sessions.
 */
public interface TranscriptStore {

    /** Creates a live transcript session; an existing id is an error. */
    void createSession(String sessionId, String sessionKey, String parentSessionId, Instant startedAt);

    Optional<TranscriptSession> session(String sessionId);

    /** Ends a live session; ending an ended one keeps its first end. False when unknown. */
    boolean endSession(String sessionId, EndReason reason, Instant at);

    /** Appends one row and returns it with its assigned {@code seq}. The session must exist. */
    TranscriptRow append(String sessionId, TranscriptRow row);

    /**
     * Appends one row without waiting for its commit, for a row nothing acts on before the caller's next write (a final
     * answer, which the turn's reply record follows): it commits with that write (in its transaction on PostgreSQL, in
     * its group commit on SQLite), which fails if this append failed. The default appends at once.
     */
    default void appendSoon(String sessionId, TranscriptRow row) {
        append(sessionId, row);
    }

    /** Every row of the session in order; empty for an unknown id. */
    List<TranscriptRow> load(String sessionId);

    /** Number of rows in the session. */
    long rowCount(String sessionId);

    /**
     * The newest live descendant reached by following compression: from {@code sessionId}, while the
     * session ended with reason {@code compression}, move to its newest child started at or after that
     * end (at most 32 hops). Returns {@code sessionId} itself when there is no such child.
     */
    String compressionTip(String sessionId);

    /**
     * Ends {@code parentSessionId} with reason {@code compression} and creates the child that continues
     * it, in one transaction. Returns the child.
     */
    TranscriptSession continueInChild(String parentSessionId, String childSessionId, Instant at);
}
