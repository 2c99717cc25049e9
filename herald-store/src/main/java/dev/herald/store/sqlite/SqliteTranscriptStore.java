package dev.herald.store.sqlite;

import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.EndReason;
import dev.herald.core.transcript.TranscriptSession;
import dev.herald.store.jdbc.JdbcTranscriptStore;
import dev.herald.store.jdbc.Transactions;
import dev.herald.store.jdbc.TranscriptTables;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Transcripts on SQLite: appends go through the writer (dense seq per session, no lock needed), loads use a
 * reader. Creating a session checks its id first: on the one writer nothing can take it in between.
 */
final class SqliteTranscriptStore extends JdbcTranscriptStore<SqlConn> {
    SqliteTranscriptStore(Transactions<SqlConn> tx) {
        super(tx, "", TranscriptSql.NEWEST_COMPRESSION_CHILD);
    }

    @Override
    protected void createSession(SqlConn c, String sessionId, String sessionKey, String parentSessionId, Instant startedAt)
            throws SQLException {
        if (TranscriptTables.exists(c, sessionId)) {
            throw new IllegalStateException("store - transcript session " + sessionId + " already exists; pick a new id");
        }
        if (parentSessionId != null && !TranscriptTables.exists(c, parentSessionId)) {
            throw StoreException.notFound("parent transcript session " + parentSessionId + " of " + sessionId);
        }
        TranscriptSql.insertSession(c, sessionId, sessionKey, parentSessionId, startedAt);
    }

    @Override
    protected void startChild(SqlConn c, TranscriptSession parent, String childId, Instant at) throws SQLException {
        if (TranscriptTables.exists(c, childId)) {
            throw new IllegalStateException("store - transcript session " + childId + " already exists; pick a new id");
        }
        TranscriptTables.end(c, parent.id(), EndReason.COMPRESSION, at);
        TranscriptSql.insertSession(c, childId, parent.sessionKey(), parent.id(), at);
    }
}
