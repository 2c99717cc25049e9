package dev.herald.store.sqlite;

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

/** Transcripts on SQLite: appends go through the writer (dense seq per session), loads use a reader. */
final class SqliteTranscriptStore implements TranscriptStore {
    private final SqliteWriter writer;
    private final ReadPool readers;

    SqliteTranscriptStore(SqliteWriter writer, ReadPool readers) {
        this.writer = writer;
        this.readers = readers;
    }

    @Override
    public void createSession(String sessionId, String sessionKey, String parentSessionId, Instant startedAt) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(startedAt, "startedAt");
        writer.write("transcript session " + sessionId, c -> {
            if (TranscriptSql.exists(c, sessionId)) {
                throw new IllegalStateException("store - transcript session " + sessionId + " already exists; pick a new id");
            }
            if (parentSessionId != null && !TranscriptSql.exists(c, parentSessionId)) {
                throw StoreException.notFound("parent transcript session " + parentSessionId + " of " + sessionId);
            }
            TranscriptSql.insertSession(c, sessionId, sessionKey, parentSessionId, startedAt);
            return null;
        });
    }

    @Override
    public Optional<TranscriptSession> session(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return readers.read("transcript session " + sessionId, c -> TranscriptSql.findSession(c, sessionId));
    }

    @Override
    public boolean endSession(String sessionId, EndReason reason, Instant at) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(at, "at");
        return writer.write("transcript session " + sessionId, c -> TranscriptSql.end(c, sessionId, reason, at));
    }

    @Override
    public TranscriptRow append(String sessionId, TranscriptRow row) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(row, "row");
        return writer.write("transcript " + sessionId, c -> TranscriptSql.append(c, sessionId, row));
    }

    @Override
    public List<TranscriptRow> load(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return readers.read("transcript " + sessionId, c -> TranscriptSql.load(c, sessionId));
    }

    @Override
    public long rowCount(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return readers.read("transcript " + sessionId, c -> TranscriptSql.rowCount(c, sessionId));
    }

    @Override
    public String compressionTip(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return readers.read("transcript session " + sessionId, c -> TranscriptSql.tip(c, sessionId));
    }

    @Override
    public TranscriptSession continueInChild(String parentSessionId, String childSessionId, Instant at) {
        Objects.requireNonNull(parentSessionId, "parentSessionId");
        Objects.requireNonNull(childSessionId, "childSessionId");
        Objects.requireNonNull(at, "at");
        Instant start = at.truncatedTo(ChronoUnit.MICROS);
        return writer.write("transcript session " + parentSessionId, c -> continueInChild(c, parentSessionId, childSessionId, start));
    }

    private static TranscriptSession continueInChild(SqlConn c, String parentId, String childId, Instant at) throws SQLException {
        TranscriptSession parent = TranscriptSql.findSession(c, parentId)
                .orElseThrow(() -> StoreException.notFound("transcript session " + parentId + " (to continue in " + childId + ")"));
        if (parent.ended() && parent.endReason() != EndReason.COMPRESSION) {
            throw new IllegalStateException("store - transcript session " + parentId + " already ended (" + parent.endReason().code()
                    + "); it cannot continue in " + childId);
        }
        if (TranscriptSql.exists(c, childId)) {
            throw new IllegalStateException("store - transcript session " + childId + " already exists; pick a new id");
        }
        TranscriptSql.end(c, parentId, EndReason.COMPRESSION, at);
        TranscriptSql.insertSession(c, childId, parent.sessionKey(), parentId, at);
        return new TranscriptSession(childId, parent.sessionKey(), parentId, at, null, null);
    }
}
