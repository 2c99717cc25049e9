package dev.herald.store.postgres;

import dev.herald.core.session.SessionIds;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.EndReason;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.transcript.TranscriptSession;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Transcript statements on a given connection, shared by the transcript, session and turn stores so
 * that a lane change or a turn start can touch transcripts inside its own transaction.
 */
final class TranscriptSql {
    /** Compression chains longer than this are cut (and a cycle cannot loop forever). */
    static final int MAX_TIP_HOPS = 32;
    private static final int MAX_ID_ATTEMPTS = 16;

    private static final String SESSION_COLUMNS = "id, session_key, parent_id, started_at, ended_at, end_reason";
    private static final String ROW_COLUMNS = "seq, role, content, tool_calls, tool_call_id, tool_name, created_at";
    static final String FIND_SESSION = "SELECT " + SESSION_COLUMNS + " FROM transcript_sessions WHERE id = ?";
    static final String NEWEST_COMPRESSION_CHILD = """
            SELECT c.id FROM transcript_sessions p JOIN transcript_sessions c ON c.parent_id = p.id
            WHERE p.id = ? AND p.end_reason = 'compression' AND c.started_at >= p.ended_at
            ORDER BY c.started_at DESC, c.created_order DESC LIMIT 1""";
    /** Appends to one session are serialized by this row lock (it does not block foreign-key checks). */
    static final String LOCK_SESSION = "SELECT 1 FROM transcript_sessions WHERE id = ? FOR NO KEY UPDATE";
    static final String NEXT_SEQ = "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?";
    static final String LOAD = "SELECT " + ROW_COLUMNS + " FROM messages WHERE session_id = ? ORDER BY seq";
    static final String LAST_ACTIVITY = """
            SELECT created_at FROM messages WHERE session_id = ? AND role NOT IN ('system', 'session_meta')
            ORDER BY seq DESC LIMIT 1""";

    private TranscriptSql() {
    }

    /** Inserts a live session; false when the id is taken. */
    static boolean insertSession(PgConn c, String id, String key, String parentId, Instant startedAt) throws SQLException {
        return c.update("INSERT INTO transcript_sessions (id, session_key, parent_id, started_at) VALUES (?, ?, ?, ?)"
                + " ON CONFLICT (id) DO NOTHING", id, key, parentId, Micros.of(startedAt)) == 1;
    }

    /** Creates a live transcript session with a new unique id for the lane and returns the id. */
    static String newSession(PgConn c, String key, Instant now) throws SQLException {
        for (int attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
            String id = SessionIds.newId(now);
            if (insertSession(c, id, key, null, now)) {
                return id;
            }
        }
        throw new IllegalStateException("store - no unused session id found for " + key + " after " + MAX_ID_ATTEMPTS + " attempts");
    }

    static boolean exists(PgConn c, String id) throws SQLException {
        return c.exists("SELECT 1 FROM transcript_sessions WHERE id = ?", id);
    }

    static Optional<TranscriptSession> findSession(PgConn c, String id) throws SQLException {
        return findSession(c, id, FIND_SESSION);
    }

    /** The session, row-locked against concurrent appends and ends until the transaction ends. */
    static Optional<TranscriptSession> lockSession(PgConn c, String id) throws SQLException {
        return findSession(c, id, FIND_SESSION + " FOR NO KEY UPDATE");
    }

    private static Optional<TranscriptSession> findSession(PgConn c, String id, String sql) throws SQLException {
        try {
            return c.one(sql, TranscriptSql::session, id);
        } catch (RowDecodeException e) {
            throw StoreException.corruptRow("transcript session " + id, e.problem(), e);
        }
    }

    /** Ends a live session; an ended one keeps its first end. False when the id is unknown. */
    static boolean end(PgConn c, String id, EndReason reason, Instant at) throws SQLException {
        int changed = c.update("UPDATE transcript_sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL",
                Micros.of(at), reason.code(), id);
        return changed == 1 || exists(c, id);
    }

    /** Appends one row with the next seq of its session; the session must exist. */
    static TranscriptRow append(PgConn c, String sessionId, TranscriptRow row) throws SQLException {
        if (!c.exists(LOCK_SESSION, sessionId)) {
            throw StoreException.notFound("transcript session " + sessionId + " (append of a " + row.role().wire() + " row)");
        }
        long seq = c.scalar(NEXT_SEQ, sessionId);
        c.update("INSERT INTO messages (session_id, " + ROW_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                sessionId, seq, row.role().wire(), row.content(), Json.toolCalls(row.toolCalls()), row.toolCallId(),
                row.toolName(), Micros.ofNullable(row.timestamp()));
        Instant at = row.timestamp() == null ? null : row.timestamp().truncatedTo(ChronoUnit.MICROS);
        return new TranscriptRow(seq, row.role(), row.content(), row.toolCalls(), row.toolCallId(), row.toolName(), at);
    }

    static List<TranscriptRow> load(PgConn c, String sessionId) throws SQLException {
        return c.list(LOAD, rs -> row(sessionId, rs), sessionId);
    }

    /** Rows are dense from 1 (the store only appends), so the highest seq is the count. */
    static long rowCount(PgConn c, String sessionId) throws SQLException {
        return c.scalar("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?", sessionId);
    }

    /** The newest live descendant through compression, or {@code sessionId} itself. */
    static String tip(PgConn c, String sessionId) throws SQLException {
        String current = sessionId;
        for (int hop = 0; hop < MAX_TIP_HOPS; hop++) {
            Optional<String> child = c.one(NEWEST_COMPRESSION_CHILD, rs -> rs.getString(1), current);
            if (child.isEmpty()) {
                return current;
            }
            current = child.get();
        }
        return current;
    }

    /**
     * When the session last showed activity, for the freshness of an interruption: the timestamp of
     * its newest row that is not bookkeeping. Empty when there is no such row; a present but null
     * instant when that row has no timestamp (a legacy row: freshness unknown).
     */
    static Optional<Optional<Instant>> lastActivity(PgConn c, String sessionId) throws SQLException {
        return c.one(LAST_ACTIVITY, rs -> Optional.ofNullable(Micros.column(rs, "created_at")), sessionId);
    }

    private static TranscriptSession session(ResultSet rs) throws SQLException {
        String reason = rs.getString("end_reason");
        EndReason endReason = reason == null ? null : RowDecodeException.decoding("end_reason", reason, () -> EndReason.fromCode(reason));
        return new TranscriptSession(rs.getString("id"), rs.getString("session_key"), rs.getString("parent_id"),
                Micros.toInstant(rs.getLong("started_at")), Micros.column(rs, "ended_at"), endReason);
    }

    private static TranscriptRow row(String sessionId, ResultSet rs) throws SQLException {
        long seq = rs.getLong("seq");
        try {
            String role = rs.getString("role");
            return new TranscriptRow(seq, RowDecodeException.decoding("role", role, () -> Role.fromWire(role)),
                    rs.getString("content"), Json.toolCalls(rs.getString("tool_calls")), rs.getString("tool_call_id"),
                    rs.getString("tool_name"), Micros.column(rs, "created_at"));
        } catch (RowDecodeException e) {
            throw StoreException.corruptRow("transcript " + sessionId + " seq " + seq, e.problem(), e);
        }
    }
}
