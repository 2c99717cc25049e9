package dev.herald.store.sqlite;

import dev.herald.store.jdbc.Micros;
import dev.herald.store.jdbc.TranscriptTables;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Transcript statements that are SQLite's own, shared by the transcript, session and turn stores so that a
 * lane change or a turn start can touch transcripts inside its own transaction. Every write runs on the one
 * writer, so check-then-insert and read-then-append need no locks. The rest is {@link TranscriptTables}.
 */
final class TranscriptSql {
    static final String NEWEST_COMPRESSION_CHILD = """
            SELECT c.id FROM transcript_sessions p JOIN transcript_sessions c ON c.parent_id = p.id
            WHERE p.id = ? AND p.end_reason = 'compression' AND c.started_at >= p.ended_at
            ORDER BY c.started_at DESC, c.rowid DESC LIMIT 1""";

    private TranscriptSql() {
    }

    static void insertSession(SqlConn c, String id, String key, String parentId, Instant startedAt) throws SQLException {
        c.update("INSERT INTO transcript_sessions (id, session_key, parent_id, started_at) VALUES (?, ?, ?, ?)",
                id, key, parentId, Micros.of(startedAt));
    }

    /** Creates a live transcript session with a new unique id for the lane and returns the id. */
    static String newSession(SqlConn c, String key, Instant now) throws SQLException {
        return TranscriptTables.newSession(key, now, id -> {
            if (TranscriptTables.exists(c, id)) {
                return false;
            }
            insertSession(c, id, key, null, now);
            return true;
        });
    }
}
