package dev.herald.store.postgres;

import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.EndReason;
import dev.herald.core.transcript.TranscriptSession;
import dev.herald.store.jdbc.JdbcTranscriptStore;
import dev.herald.store.jdbc.Transactions;
import dev.herald.store.jdbc.TranscriptTables;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Transcripts on PostgreSQL. Appends to one session are serialized by a row lock on the session, so
 * {@code seq} stays dense however many threads or nodes append; loads read one session by its index.
 * Session ids are claimed by the primary key ({@code ON CONFLICT DO NOTHING}), not by a check before.
 */
final class PostgresTranscriptStore extends JdbcTranscriptStore<PgConn> {
    PostgresTranscriptStore(Transactions<PgConn> tx) {
        super(tx, TranscriptSql.LOCK, TranscriptSql.NEWEST_COMPRESSION_CHILD);
    }

    @Override
    protected void createSession(PgConn c, String sessionId, String sessionKey, String parentSessionId, Instant startedAt)
            throws SQLException {
        if (parentSessionId != null && !TranscriptTables.exists(c, parentSessionId)) {
            throw StoreException.notFound("parent transcript session " + parentSessionId + " of " + sessionId);
        }
        if (!TranscriptSql.insertSession(c, sessionId, sessionKey, parentSessionId, startedAt)) {
            throw new IllegalStateException("store - transcript session " + sessionId + " already exists; pick a new id");
        }
    }

    @Override
    protected void startChild(PgConn c, TranscriptSession parent, String childId, Instant at) throws SQLException {
        if (!TranscriptSql.insertSession(c, childId, parent.sessionKey(), parent.id(), at)) {
            throw new IllegalStateException("store - transcript session " + childId + " already exists; pick a new id");
        }
        TranscriptTables.end(c, parent.id(), EndReason.COMPRESSION, at);
    }
}
