package dev.herald.store.jdbc;

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
 * The {@code transcript_sessions} and {@code messages} tables: their statements on a given connection, and
 * reading their rows. Shared by the transcript, session and turn stores so that a lane change or a turn start can
 * touch transcripts inside its own transaction. What differs between databases comes from the {@link Dialect}
 * (a row lock, the insertion-order column that breaks ties).
 */
public final class TranscriptTables {
    /** Compression chains longer than this are cut (and a cycle cannot loop forever). */
    private static final int MAX_TIP_HOPS = 32;
    private static final int MAX_ID_ATTEMPTS = 16;

    private static final String SESSION_COLUMNS = "id, session_key, parent_id, started_at, ended_at, end_reason";
    private static final String ROW_COLUMNS = "seq, role, content, tool_calls, tool_call_id, tool_name, created_at, attachments";
    /** Selects a row when the session exists. */
    public static final String SESSION_EXISTS = "SELECT 1 FROM transcript_sessions WHERE id = ?";
    static final String FIND_SESSION = "SELECT " + SESSION_COLUMNS + " FROM transcript_sessions WHERE id = ?";
    /** The seq of a session's next row: rows are dense from 1. */
    public static final String NEXT_SEQ = "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?";
    /** A session's rows in order. */
    public static final String LOAD = "SELECT " + ROW_COLUMNS + " FROM messages WHERE session_id = ? ORDER BY seq";
    /** A session's rows after a given seq, in order. */
    static final String LOAD_AFTER = "SELECT " + ROW_COLUMNS + " FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq";
    /** The time of a session's newest row that is not bookkeeping. */
    public static final String LAST_ACTIVITY = """
            SELECT created_at FROM messages WHERE session_id = ? AND role NOT IN ('system', 'session_meta')
            ORDER BY seq DESC LIMIT 1""";

    private TranscriptTables() {
    }

    /** Selects the id of a session's newest compression child, ties broken by insertion order. */
    public static String newestChild(Dialect dialect) {
        return "SELECT c.id FROM transcript_sessions p JOIN transcript_sessions c ON c.parent_id = p.id "
                + "WHERE p.id = ? AND p.end_reason = 'compression' AND c.started_at >= p.ended_at "
                + "ORDER BY c.started_at DESC, c." + dialect.insertionOrder() + " DESC LIMIT 1";
    }

    /** Inserts a live session unless the id is taken (the primary key decides, for every writer); true when it inserted. */
    public static boolean insertSession(JdbcConn c, String id, String key, String parentId, Instant startedAt) throws SQLException {
        return c.update("INSERT INTO transcript_sessions (id, session_key, parent_id, started_at) VALUES (?, ?, ?, ?)"
                + " ON CONFLICT (id) DO NOTHING", id, key, parentId, Micros.of(startedAt)) == 1;
    }

    /** Creates a live transcript session with a new unique id for the lane and returns the id. */
    public static String newSession(JdbcConn c, String key, Instant now) throws SQLException {
        for (int attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
            String id = SessionIds.newId(now);
            if (insertSession(c, id, key, null, now)) {
                return id;
            }
        }
        throw new IllegalStateException("store - no unused session id found for " + key + " after " + MAX_ID_ATTEMPTS + " attempts");
    }

    /** Whether a transcript session with this id exists. */
    public static boolean exists(JdbcConn c, String id) throws SQLException {
        return c.exists(SESSION_EXISTS, id);
    }

    static Optional<TranscriptSession> findSession(JdbcConn c, String id) throws SQLException {
        return findSession(c, id, FIND_SESSION);
    }

    /**
     * The session selected by {@code sql}, {@link #FIND_SESSION} or a dialect's locking form of it;
     * {@link StoreException#corruptRow} naming the id when the row cannot be read.
     */
    static Optional<TranscriptSession> findSession(JdbcConn c, String id, String sql) throws SQLException {
        try {
            return c.one(sql, TranscriptTables::session, id);
        } catch (RowDecodeException e) {
            throw StoreException.corruptRow("transcript session " + id, e.problem(), e);
        }
    }

    /** Ends a live session; an ended one keeps its first end. False when the id is unknown. */
    public static boolean end(JdbcConn c, String id, EndReason reason, Instant at) throws SQLException {
        int changed = c.update("UPDATE transcript_sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL",
                Micros.of(at), reason.code(), id);
        return changed == 1 || exists(c, id);
    }

    /**
     * Appends one row with the next seq of its session. {@code guard} selects the session's row by id (a
     * dialect that has concurrent writers locks it there, so that seq stays dense); no row means the session
     * does not exist and nothing is appended.
     */
    static TranscriptRow append(JdbcConn c, String guard, String sessionId, TranscriptRow row) throws SQLException {
        if (!c.exists(guard, sessionId)) {
            throw StoreException.notFound("transcript session " + sessionId + " (append of a " + row.role().wire() + " row)");
        }
        long seq = c.scalar(NEXT_SEQ, sessionId);
        c.update("INSERT INTO messages (session_id, " + ROW_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                sessionId, seq, row.role().wire(), row.content(), Json.toolCalls(row.toolCalls()), row.toolCallId(),
                row.toolName(), Micros.ofNullable(row.timestamp()), Json.attachments(row.attachments()));
        Instant at = row.timestamp() == null ? null : row.timestamp().truncatedTo(ChronoUnit.MICROS);
        return new TranscriptRow(seq, row.role(), row.content(), row.toolCalls(), row.toolCallId(), row.toolName(), at,
                row.attachments());
    }

    /** The session's rows in order; {@link StoreException#corruptRow} naming the row when one cannot be read. */
    public static List<TranscriptRow> load(JdbcConn c, String sessionId) throws SQLException {
        return c.list(LOAD, rs -> row(sessionId, rs), sessionId);
    }

    /** The session's rows after {@code seq}, in order (what a cached copy that ends at {@code seq} lacks). */
    static List<TranscriptRow> loadAfter(JdbcConn c, String sessionId, long seq) throws SQLException {
        return c.list(LOAD_AFTER, rs -> row(sessionId, rs), sessionId, seq);
    }

    /**
     * Every transcript session, or those of one lane ({@code sessionKey} not null), by lane, then oldest first:
     * what an export walks. Sessions whose row cannot be read are logged and skipped.
     */
    public static List<TranscriptSession> sessions(JdbcConn c, String sessionKey) throws SQLException {
        String sql = "SELECT " + SESSION_COLUMNS + " FROM transcript_sessions"
                + (sessionKey == null ? "" : " WHERE session_key = ?") + " ORDER BY session_key, started_at, id";
        return sessionKey == null ? c.listReadable(sql, TranscriptTables::session, TranscriptTables::sessionSubject)
                : c.listReadable(sql, TranscriptTables::session, TranscriptTables::sessionSubject, sessionKey);
    }

    private static String sessionSubject(ResultSet rs) {
        try {
            return "transcript session " + rs.getString("id");
        } catch (SQLException e) {
            return "a transcript session";
        }
    }

    /** Rows are dense from 1 (the store only appends), so the highest seq is the count. */
    static long rowCount(JdbcConn c, String sessionId) throws SQLException {
        return c.scalar("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?", sessionId);
    }

    /**
     * The newest live descendant through compression, or {@code sessionId} itself. {@code newestChild}
     * selects the id of a session's newest compression child (the dialect's tie-break differs).
     */
    static String tip(JdbcConn c, String newestChild, String sessionId) throws SQLException {
        String current = sessionId;
        for (int hop = 0; hop < MAX_TIP_HOPS; hop++) {
            Optional<String> child = c.one(newestChild, rs -> rs.getString(1), current);
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
    static Optional<Optional<Instant>> lastActivity(JdbcConn c, String sessionId) throws SQLException {
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
                    rs.getString("tool_name"), Micros.column(rs, "created_at"),
                    Json.attachmentsOrNone(rs.getString("attachments"), "transcript " + sessionId + " seq " + seq));
        } catch (RowDecodeException e) {
            throw StoreException.corruptRow("transcript " + sessionId + " seq " + seq, e.problem(), e);
        }
    }
}
