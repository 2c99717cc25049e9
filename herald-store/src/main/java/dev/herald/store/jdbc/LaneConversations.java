package dev.herald.store.jdbc;

import dev.herald.core.session.Conversation;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.transcript.EndReason;
import dev.herald.core.transcript.TranscriptSession;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A lane's conversations ({@code /sessions}) and switching between them ({@code /resume}), the same on both databases.
 * A conversation is a transcript stored under the lane's key that did not continue in a compression child; the title
 * a lane had while a transcript was current is stored with that transcript ({@code transcript_sessions.title}, schema
 * V15 on SQLite, V11 on PostgreSQL) when the lane leaves it.
 */
final class LaneConversations {
    /** Transcripts read per listing at most (the newest started). */
    private static final int MAX_READ = 500;
    private static final String LIST = """
            SELECT s.id, s.started_at, s.title,
                (SELECT m.content FROM messages m WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
                    AND m.content <> '' ORDER BY m.seq LIMIT 1) AS first_message,
                (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.role IN ('user', 'assistant')
                    AND m.content IS NOT NULL AND m.content <> '') AS message_count,
                (SELECT MAX(m.created_at) FROM messages m WHERE m.session_id = s.id) AS last_at
            FROM transcript_sessions s
            WHERE s.session_key = ? AND (s.end_reason IS NULL OR s.end_reason <> 'compression')
            ORDER BY s.started_at DESC LIMIT\s""" + MAX_READ;
    /** Stores a title with a transcript (null leaves the stored one). */
    static final String KEEP_TITLE = "UPDATE transcript_sessions SET title = COALESCE(?, title) WHERE id = ?";

    private LaneConversations() {
    }

    /** The lane's conversations, the current one first, then the most recently active first; at most {@code limit}. */
    static List<Conversation> list(JdbcConn c, String newestChild, SessionKey key, int limit) throws SQLException {
        Optional<SessionEntry> lane = SessionTable.find(c, key);
        if (lane.isEmpty() || limit <= 0) {
            return List.of();
        }
        String current = TranscriptTables.tip(c, newestChild, lane.get().sessionId());
        String laneTitle = lane.get().title();
        List<Conversation> all = new ArrayList<>(c.list(LIST, rs -> {
            String id = rs.getString("id");
            boolean isCurrent = id.equals(current);
            return new Conversation(id, isCurrent ? laneTitle : rs.getString("title"), rs.getString("first_message"),
                    Micros.toInstant(rs.getLong("started_at")), Micros.column(rs, "last_at"), rs.getLong("message_count"), isCurrent);
        }, key.value()));
        all.sort(Comparator.comparing((Conversation v) -> !v.current()).thenComparing(Conversation::activeAt, Comparator.reverseOrder()));
        return List.copyOf(all.subList(0, Math.min(limit, all.size())));
    }

    /**
     * Points the lane (read and locked by the caller's {@code find}) at {@code sessionId}'s compression tip; empty when
     * that transcript is not the lane's.
     */
    static Optional<SessionEntry> switchTo(JdbcConn c, String newestChild, SessionEntry lane, String sessionId, Instant now)
            throws SQLException {
        Optional<TranscriptSession> chosen = TranscriptTables.findSession(c, sessionId);
        if (chosen.isEmpty() || !lane.key().value().equals(chosen.get().sessionKey())) {
            return Optional.empty();
        }
        String target = TranscriptTables.tip(c, newestChild, sessionId);
        String current = TranscriptTables.tip(c, newestChild, lane.sessionId());
        if (target.equals(current)) {
            return Optional.of(lane);
        }
        c.update(KEEP_TITLE, lane.title(), current);
        TranscriptTables.end(c, current, EndReason.SESSION_RESET, now);
        c.update("UPDATE transcript_sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?", target);
        TranscriptSession reopened = TranscriptTables.findSession(c, target).orElseThrow();
        String title = c.one("SELECT title FROM transcript_sessions WHERE id = ?", rs -> Optional.ofNullable(rs.getString(1)), target)
                .flatMap(t -> t).orElse(null);
        SessionEntry switched = new SessionEntry(lane.key(), target, reopened.startedAt(), now, lane.origin(), lane.displayName(),
                lane.platform(), lane.chatType(), null, null, false, null, false, null, null, 0, 0, 0, title, lane.hiddenAt());
        SessionRows.replace(c, switched);
        c.update(SessionTable.RENAME, title, lane.key().value());
        return Optional.of(switched);
    }
}
