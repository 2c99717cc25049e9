package dev.herald.store.postgres;

import dev.herald.store.jdbc.Micros;
import dev.herald.store.jdbc.TranscriptTables;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Transcript statements that are PostgreSQL's own, shared by the transcript, session and turn stores so
 * that a lane change or a turn start can touch transcripts inside its own transaction. Writers may run at
 * once on several connections and nodes: ids are claimed by the primary key, appends lock their session's
 * row. The rest is {@link TranscriptTables}.
 */
final class TranscriptSql {
    static final String NEWEST_COMPRESSION_CHILD = """
            SELECT c.id FROM transcript_sessions p JOIN transcript_sessions c ON c.parent_id = p.id
            WHERE p.id = ? AND p.end_reason = 'compression' AND c.started_at >= p.ended_at
            ORDER BY c.started_at DESC, c.created_order DESC LIMIT 1""";
    /**
     * Appends to and ends of one session are serialized by this row lock on the session (it does not block
     * foreign-key checks), appended to a SELECT of the row.
     */
    static final String LOCK = " FOR NO KEY UPDATE";
    /** The guard of an append: locks the session's row; no row when the session does not exist. */
    static final String LOCK_SESSION = TranscriptTables.SESSION_EXISTS + LOCK;

    private TranscriptSql() {
    }

    /** Inserts a live session; false when the id is taken. */
    static boolean insertSession(PgConn c, String id, String key, String parentId, Instant startedAt) throws SQLException {
        return c.update("INSERT INTO transcript_sessions (id, session_key, parent_id, started_at) VALUES (?, ?, ?, ?)"
                + " ON CONFLICT (id) DO NOTHING", id, key, parentId, Micros.of(startedAt)) == 1;
    }

    /** Creates a live transcript session with a new unique id for the lane and returns the id. */
    static String newSession(PgConn c, String key, Instant now) throws SQLException {
        return TranscriptTables.newSession(key, now, id -> insertSession(c, id, key, null, now));
    }
}
