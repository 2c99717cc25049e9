package dev.herald.store.sqlite;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.ResetReason;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.core.session.SuspendReason;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/** The {@code sessions} table: reading a row into a {@link SessionEntry} and writing one back. */
final class SessionRows {
    static final String COLUMNS = """
            session_key, session_id, created_at, updated_at, origin, display_name, platform, chat_type, suspended,
            suspend_reason, suspended_at, was_auto_reset, auto_reset_reason, resume_pending, resume_reason, resume_marked_at, interrupted_restarts,
            input_tokens, output_tokens""";

    private static final String UPSERT = "INSERT INTO sessions (" + COLUMNS + """
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

    /** The stored entry; {@link StoreException#corruptRow} naming the key when the row cannot be read. */
    static Optional<SessionEntry> find(SqlConn c, SessionKey key) throws SQLException {
        try {
            return c.one("SELECT " + COLUMNS + " FROM sessions WHERE session_key = ?", SessionRows::decode, key.value());
        } catch (RowDecodeException e) {
            throw StoreException.corruptRow("session " + key, e.problem(), e);
        }
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

    /** A lane was used: points it at {@code sessionId}, bumps its time and records the latest source. */
    static SessionEntry touch(SqlConn c, SessionEntry e, String sessionId, SessionSource origin, Instant now) throws SQLException {
        String displayName = origin.chatName() != null ? origin.chatName() : e.displayName();
        c.update("""
                UPDATE sessions SET session_id = ?, updated_at = ?, origin = ?, display_name = ?, platform = ?, chat_type = ?
                WHERE session_key = ?""", sessionId, Micros.of(now), Json.source(origin), displayName,
                origin.platform().id(), origin.chatType().wire(), e.key().value());
        return new SessionEntry(e.key(), sessionId, e.createdAt(), now, origin, displayName, origin.platform(),
                origin.chatType(), e.suspendReason(), e.suspendedAt(), e.wasAutoReset(), e.autoResetReason(), e.resumePending(),
                e.resumeReason(), e.lastResumeMarkedAt(), e.interruptedRestarts(), e.inputTokens(), e.outputTokens());
    }

    /** The raw key of the current row, for naming a row that cannot be decoded. */
    static String subject(ResultSet rs) {
        try {
            return "session " + rs.getString("session_key");
        } catch (SQLException e) {
            return "session (key unreadable)";
        }
    }

    static SessionEntry decode(ResultSet rs) throws SQLException {
        String key = rs.getString("session_key");
        String platform = rs.getString("platform");
        String chatType = rs.getString("chat_type");
        String resetReason = rs.getString("auto_reset_reason");
        String resumeReason = rs.getString("resume_reason");
        String suspendReason = rs.getString("suspend_reason");
        boolean suspended = rs.getInt("suspended") != 0;
        return new SessionEntry(
                RowDecodeException.decoding("session_key", key, () -> new SessionKey(key)),
                rs.getString("session_id"),
                Micros.toInstant(rs.getLong("created_at")),
                Micros.toInstant(rs.getLong("updated_at")),
                Json.source(rs.getString("origin"), "origin"),
                rs.getString("display_name"),
                platform == null ? null : RowDecodeException.decoding("platform", platform, () -> Platform.of(platform)),
                RowDecodeException.decoding("chat_type", chatType, () -> ChatType.fromWire(chatType)),
                !suspended ? null : suspendReason == null ? SuspendReason.UNRECORDED
                        : RowDecodeException.decoding("suspend_reason", suspendReason, () -> SuspendReason.fromCode(suspendReason)),
                suspended ? Micros.column(rs, "suspended_at") : null,
                rs.getInt("was_auto_reset") != 0,
                resetReason == null ? null : RowDecodeException.decoding("auto_reset_reason", resetReason, () -> ResetReason.fromCode(resetReason)),
                rs.getInt("resume_pending") != 0,
                resumeReason == null ? null : RowDecodeException.decoding("resume_reason", resumeReason, () -> new ResumeReason(resumeReason)),
                Micros.column(rs, "resume_marked_at"),
                rs.getInt("interrupted_restarts"),
                rs.getLong("input_tokens"),
                rs.getLong("output_tokens"));
    }

    private static int bit(boolean b) {
        return b ? 1 : 0;
    }
}
