package dev.herald.store.postgres;

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
 * Transcripts on PostgreSQL. Appends to one session are serialized by a row lock on the session, so
 * {@code seq} stays dense however many threads or nodes append; loads read one session by its index.
 */
final class PostgresTranscriptStore implements TranscriptStore {
    private final PgPool pool;

    PostgresTranscriptStore(PgPool pool) {
        this.pool = pool;
    }

    @Override
    public void createSession(String sessionId, String sessionKey, String parentSessionId, Instant startedAt) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(startedAt, "startedAt");
        pool.write("transcript session " + sessionId, c -> {
            if (parentSessionId != null && !TranscriptSql.exists(c, parentSessionId)) {
                throw StoreException.notFound("parent transcript session " + parentSessionId + " of " + sessionId);
            }
            if (!TranscriptSql.insertSession(c, sessionId, sessionKey, parentSessionId, startedAt)) {
                throw new IllegalStateException("store - transcript session " + sessionId + " already exists; pick a new id");
            }
            return null;
        });
    }

    @Override
    public Optional<TranscriptSession> session(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return pool.read("transcript session " + sessionId, c -> TranscriptSql.findSession(c, sessionId));
    }

    @Override
    public boolean endSession(String sessionId, EndReason reason, Instant at) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(at, "at");
        return pool.write("transcript session " + sessionId, c -> TranscriptSql.end(c, sessionId, reason, at));
    }

    @Override
    public TranscriptRow append(String sessionId, TranscriptRow row) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(row, "row");
        return pool.write("transcript " + sessionId, c -> TranscriptSql.append(c, sessionId, row));
    }

    @Override
    public List<TranscriptRow> load(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return pool.read("transcript " + sessionId, c -> TranscriptSql.load(c, sessionId));
    }

    @Override
    public long rowCount(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return pool.read("transcript " + sessionId, c -> TranscriptSql.rowCount(c, sessionId));
    }

    @Override
    public String compressionTip(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return pool.read("transcript session " + sessionId, c -> TranscriptSql.tip(c, sessionId));
    }

    @Override
    public TranscriptSession continueInChild(String parentSessionId, String childSessionId, Instant at) {
        Objects.requireNonNull(parentSessionId, "parentSessionId");
        Objects.requireNonNull(childSessionId, "childSessionId");
        Objects.requireNonNull(at, "at");
        Instant start = at.truncatedTo(ChronoUnit.MICROS);
        return pool.write("transcript session " + parentSessionId, c -> continueInChild(c, parentSessionId, childSessionId, start));
    }

    private static TranscriptSession continueInChild(PgConn c, String parentId, String childId, Instant at) throws SQLException {
        TranscriptSession parent = TranscriptSql.lockSession(c, parentId)
                .orElseThrow(() -> StoreException.notFound("transcript session " + parentId + " (to continue in " + childId + ")"));
        if (parent.ended() && parent.endReason() != EndReason.COMPRESSION) {
            throw new IllegalStateException("store - transcript session " + parentId + " already ended (" + parent.endReason().code()
                    + "); it cannot continue in " + childId);
        }
        if (!TranscriptSql.insertSession(c, childId, parent.sessionKey(), parentId, at)) {
            throw new IllegalStateException("store - transcript session " + childId + " already exists; pick a new id");
        }
        TranscriptSql.end(c, parentId, EndReason.COMPRESSION, at);
        return new TranscriptSession(childId, parent.sessionKey(), parentId, at, null, null);
    }
}
