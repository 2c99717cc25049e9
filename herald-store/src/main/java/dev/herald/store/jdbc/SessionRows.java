package dev.herald.store.jdbc;

import dev.herald.core.session.SessionEntry;
import java.sql.SQLException;

/**
 * Writing whole {@code sessions} rows, the same on both databases (flags bound as booleans: PostgreSQL's boolean,
 * SQLite's 0 or 1). A lane is created only if absent, since another writer may create it at the same moment, and
 * replaced only by the transaction that read (and, where rows are locked, locked) it. Reading is
 * {@link SessionTable}'s.
 */
public final class SessionRows {
    private static final String INSERT = "INSERT INTO sessions (" + SessionTable.COLUMNS + """
            ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (session_key) DO NOTHING""";
    private static final String REPLACE = """
            UPDATE sessions SET session_id = ?, created_at = ?, updated_at = ?, origin = ?, display_name = ?, platform = ?,
                chat_type = ?, suspended = ?, suspend_reason = ?, suspended_at = ?, was_auto_reset = ?, auto_reset_reason = ?,
                resume_pending = ?, resume_reason = ?, resume_marked_at = ?, interrupted_restarts = ?, input_tokens = ?,
                output_tokens = ?
            WHERE session_key = ?""";

    private SessionRows() {
    }

    /** Inserts the lane's row; false when a row for the key exists already (another writer created it). */
    public static boolean insertIfAbsent(JdbcConn c, SessionEntry e) throws SQLException {
        return c.update(INSERT, e.key().value(), e.sessionId(), Micros.of(e.createdAt()), Micros.of(e.updatedAt()),
                Json.source(e.origin()), e.displayName(), platformId(e), e.chatType().wire(), e.suspended(),
                e.suspended() ? e.suspendReason().code() : null, Micros.ofNullable(e.suspendedAt()), e.wasAutoReset(),
                resetCode(e), e.resumePending(), resumeCode(e), Micros.ofNullable(e.lastResumeMarkedAt()),
                e.interruptedRestarts(), e.inputTokens(), e.outputTokens()) == 1;
    }

    /** Overwrites every column of the lane's existing row. */
    static void replace(JdbcConn c, SessionEntry e) throws SQLException {
        c.update(REPLACE, e.sessionId(), Micros.of(e.createdAt()), Micros.of(e.updatedAt()), Json.source(e.origin()),
                e.displayName(), platformId(e), e.chatType().wire(), e.suspended(),
                e.suspended() ? e.suspendReason().code() : null, Micros.ofNullable(e.suspendedAt()), e.wasAutoReset(),
                resetCode(e), e.resumePending(), resumeCode(e), Micros.ofNullable(e.lastResumeMarkedAt()),
                e.interruptedRestarts(), e.inputTokens(), e.outputTokens(), e.key().value());
    }

    private static String platformId(SessionEntry e) {
        return e.platform() == null ? null : e.platform().id();
    }

    private static String resetCode(SessionEntry e) {
        return e.autoResetReason() == null ? null : e.autoResetReason().code();
    }

    private static String resumeCode(SessionEntry e) {
        return e.resumeReason() == null ? null : e.resumeReason().code();
    }
}
