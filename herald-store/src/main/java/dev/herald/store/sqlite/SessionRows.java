package dev.herald.store.sqlite;

import dev.herald.core.session.SessionEntry;
import dev.herald.store.jdbc.Json;
import dev.herald.store.jdbc.Micros;
import dev.herald.store.jdbc.SessionTable;
import java.sql.SQLException;

/** Writing a whole {@code sessions} row on SQLite (flags as 0/1); reading is {@link SessionTable}'s. */
final class SessionRows {
    private static final String UPSERT = "INSERT INTO sessions (" + SessionTable.COLUMNS + """
            ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (session_key) DO UPDATE SET session_id = excluded.session_id, created_at = excluded.created_at,
            updated_at = excluded.updated_at, origin = excluded.origin, display_name = excluded.display_name,
            platform = excluded.platform, chat_type = excluded.chat_type, suspended = excluded.suspended,
            suspend_reason = excluded.suspend_reason, suspended_at = excluded.suspended_at, was_auto_reset = excluded.was_auto_reset, auto_reset_reason = excluded.auto_reset_reason,
            resume_pending = excluded.resume_pending, resume_reason = excluded.resume_reason,
            resume_marked_at = excluded.resume_marked_at, interrupted_restarts = excluded.interrupted_restarts,
            input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens""";

    private SessionRows() {
    }

    /** Writes the whole entry, inserting or replacing the lane's row. */
    static void put(SqlConn c, SessionEntry e) throws SQLException {
        c.update(UPSERT, e.key().value(), e.sessionId(), Micros.of(e.createdAt()), Micros.of(e.updatedAt()),
                Json.source(e.origin()), e.displayName(), e.platform() == null ? null : e.platform().id(),
                e.chatType().wire(), bit(e.suspended()), e.suspended() ? e.suspendReason().code() : null,
                Micros.ofNullable(e.suspendedAt()), bit(e.wasAutoReset()),
                e.autoResetReason() == null ? null : e.autoResetReason().code(), bit(e.resumePending()),
                e.resumeReason() == null ? null : e.resumeReason().code(), Micros.ofNullable(e.lastResumeMarkedAt()),
                e.interruptedRestarts(), e.inputTokens(), e.outputTokens());
    }

    private static int bit(boolean b) {
        return b ? 1 : 0;
    }
}
