package dev.herald.store.jdbc;

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

/**
 * The {@code sessions} table as both databases read it: its columns and reading a row into a
 * {@link SessionEntry} (flags read with {@code getBoolean}: PostgreSQL's booleans, SQLite's 0 and 1). Writing a
 * whole row is {@link SessionRows}'.
 */
public final class SessionTable {
    /** Every column of a lane's row, in the order the dialects insert them. */
    public static final String COLUMNS = """
            session_key, session_id, created_at, updated_at, origin, display_name, platform, chat_type, suspended,
            suspend_reason, suspended_at, was_auto_reset, auto_reset_reason, resume_pending, resume_reason, resume_marked_at,
            interrupted_restarts, input_tokens, output_tokens""";

    /**
     * The columns a lane is read with: {@link #COLUMNS} plus those its user sets and no continuity write touches
     * (the title and the hidden mark, schema V6), so rewriting a lane's continuity state keeps them.
     */
    public static final String READ = COLUMNS + ", title, hidden_at";

    /** One lane by key. */
    public static final String FIND = "SELECT " + READ + " FROM sessions WHERE session_key = ?";
    /**
     * A message from an origin reached the lane: parameters updated_at, origin, display name (null keeps the stored one),
     * platform, chat type, then what names the lane ({@link #touch(JdbcConn, String, SessionSource, Instant, Object)}).
     */
    private static final String TOUCH = """
            UPDATE sessions SET updated_at = ?, origin = ?, display_name = COALESCE(?, display_name), platform = ?, chat_type = ?
            WHERE session_key = %s""";
    /** {@link #TOUCH} of the lane whose key is the last parameter. */
    public static final String TOUCH_BY_KEY = TOUCH.formatted("?");
    /** {@link #TOUCH} of the lane of the turn whose id is the last parameter. */
    public static final String TOUCH_BY_TURN = TOUCH.formatted("(SELECT session_key FROM turns WHERE id = ?)");
    /** Sets or clears a lane's title. */
    public static final String RENAME = "UPDATE sessions SET title = ? WHERE session_key = ?";
    /** Hides a lane, keeping the first time it was hidden. */
    public static final String HIDE = "UPDATE sessions SET hidden_at = COALESCE(hidden_at, ?) WHERE session_key = ?";
    /** One more restart cut off a turn of the lane (the stuck-loop counter). */
    public static final String COUNT_INTERRUPTION = "UPDATE sessions SET interrupted_restarts = interrupted_restarts + 1 WHERE session_key = ?";

    private SessionTable() {
    }

    /** Bumps the lane that the last parameter of {@code touch} ({@link #TOUCH_BY_KEY} or {@link #TOUCH_BY_TURN}) names. */
    static int touch(JdbcConn c, String touch, SessionSource origin, Instant now, Object lane) throws SQLException {
        return c.update(touch, Micros.of(now), Json.source(origin), origin.chatName(), origin.platform().id(), origin.chatType().wire(),
                lane);
    }

    /** The entry as a touch by {@code origin} at {@code now} leaves it, in transcript session {@code sessionId}. */
    static SessionEntry touched(SessionEntry e, String sessionId, SessionSource origin, Instant now) {
        String displayName = origin.chatName() != null ? origin.chatName() : e.displayName();
        return new SessionEntry(e.key(), sessionId, e.createdAt(), now, origin, displayName, origin.platform(),
                origin.chatType(), e.suspendReason(), e.suspendedAt(), e.wasAutoReset(), e.autoResetReason(), e.resumePending(),
                e.resumeReason(), e.lastResumeMarkedAt(), e.interruptedRestarts(), e.inputTokens(), e.outputTokens(), e.title(),
                e.hiddenAt());
    }

    /** The stored entry; {@link StoreException#corruptRow} naming the key when the row cannot be read. */
    static Optional<SessionEntry> find(JdbcConn c, SessionKey key) throws SQLException {
        return find(c, key, FIND);
    }

    /** The entry selected by {@code sql}, {@link #FIND} or a dialect's locking form of it; as {@link #find(JdbcConn, SessionKey)}. */
    static Optional<SessionEntry> find(JdbcConn c, SessionKey key, String sql) throws SQLException {
        try {
            return c.one(sql, SessionTable::decode, key.value());
        } catch (RowDecodeException e) {
            throw StoreException.corruptRow("session " + key, e.problem(), e);
        }
    }

    /** The raw key of the current row, for naming a row that cannot be decoded. */
    public static String subject(ResultSet rs) {
        try {
            return "session " + rs.getString("session_key");
        } catch (SQLException e) {
            return "session (key unreadable)";
        }
    }

    /**
     * The current row ({@link #READ}) as an entry; {@link RowDecodeException} when it holds bad data. The
     * flags are read with {@code getBoolean}, which is {@code getInt != 0} on SQLite's integer columns.
     */
    public static SessionEntry decode(ResultSet rs) throws SQLException {
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
                rs.getLong("output_tokens"),
                rs.getString("title"),
                Micros.column(rs, "hidden_at"));
    }
}
