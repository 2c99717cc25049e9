package dev.herald.store.postgres;

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
            suspend_reason, suspended_at, was_auto_reset, auto_reset_reason, resume_pending, resume_reason, resume_marked_at,
            interrupted_restarts, input_tokens, output_tokens""";

    static final String FIND = "SELECT " + COLUMNS + " FROM sessions WHERE session_key = ?";

    private static final String INSERT = "INSERT INTO sessions (" + COLUMNS + """
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

    /** The stored entry; {@link StoreException#corruptRow} naming the key when the row cannot be read. */
    static Optional<SessionEntry> find(PgConn c, SessionKey key) throws SQLException {
        return find(c, key, FIND);
    }

    /**
     * The stored entry, row-locked until the transaction ends so that a read-modify-write of the lane is
     * not interleaved with another writer's (on this node or another).
     */
    static Optional<SessionEntry> findForUpdate(PgConn c, SessionKey key) throws SQLException {
        return find(c, key, FIND + " FOR UPDATE");
    }

    private static Optional<SessionEntry> find(PgConn c, SessionKey key, String sql) throws SQLException {
        try {
            return c.one(sql, SessionRows::decode, key.value());
        } catch (RowDecodeException e) {
            throw StoreException.corruptRow("session " + key, e.problem(), e);
        }
    }

    /** Inserts the lane's row; false when a row for the key exists already (another writer created it). */
    static boolean insertIfAbsent(PgConn c, SessionEntry e) throws SQLException {
        return c.update(INSERT, e.key().value(), e.sessionId(), Micros.of(e.createdAt()), Micros.of(e.updatedAt()),
                Json.source(e.origin()), e.displayName(), platformId(e), e.chatType().wire(), e.suspended(),
                e.suspended() ? e.suspendReason().code() : null, Micros.ofNullable(e.suspendedAt()), e.wasAutoReset(),
                resetCode(e), e.resumePending(), resumeCode(e), Micros.ofNullable(e.lastResumeMarkedAt()),
                e.interruptedRestarts(), e.inputTokens(), e.outputTokens()) == 1;
    }

    /** Overwrites every column of the lane's existing row. */
    static void replace(PgConn c, SessionEntry e) throws SQLException {
        c.update(REPLACE, e.sessionId(), Micros.of(e.createdAt()), Micros.of(e.updatedAt()), Json.source(e.origin()),
                e.displayName(), platformId(e), e.chatType().wire(), e.suspended(),
                e.suspended() ? e.suspendReason().code() : null, Micros.ofNullable(e.suspendedAt()), e.wasAutoReset(),
                resetCode(e), e.resumePending(), resumeCode(e), Micros.ofNullable(e.lastResumeMarkedAt()),
                e.interruptedRestarts(), e.inputTokens(), e.outputTokens(), e.key().value());
    }

    /** A lane was used: points it at {@code sessionId}, bumps its time and records the latest source. */
    static SessionEntry touch(PgConn c, SessionEntry e, String sessionId, SessionSource origin, Instant now) throws SQLException {
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
        boolean suspended = rs.getBoolean("suspended");
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
                rs.getBoolean("was_auto_reset"),
                resetReason == null ? null : RowDecodeException.decoding("auto_reset_reason", resetReason, () -> ResetReason.fromCode(resetReason)),
                rs.getBoolean("resume_pending"),
                resumeReason == null ? null : RowDecodeException.decoding("resume_reason", resumeReason, () -> new ResumeReason(resumeReason)),
                Micros.column(rs, "resume_marked_at"),
                rs.getInt("interrupted_restarts"),
                rs.getLong("input_tokens"),
                rs.getLong("output_tokens"));
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
