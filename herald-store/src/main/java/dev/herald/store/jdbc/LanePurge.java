package dev.herald.store.jdbc;

import dev.herald.core.session.PurgeResult;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnState;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Removing a lane for good, in the caller's one write transaction, for both databases.
 *
 * <p>Order and locks. The lane's row is read first with the dialect's row lock, so a lookup of the lane
 * ({@code getOrCreate}) waits and then finds no lane; its transcript sessions are locked next, so an append under
 * way finishes before its rows are counted and none starts after. The checks follow (no unfinished turn, not
 * resume-pending); a refusal returns before anything is written. Then the deletes, children before parents: the lane's
 * row (it references its current transcript), its model choice, its finished turns, the parent links that point into
 * its transcripts (another lane's transcript keeps its rows), the rows, the transcript sessions.
 *
 * <p>Only finished turns are deleted: every turn of the lane was finished when checked, and a turn received
 * afterwards by another writer (PostgreSQL) is a new message that starts the lane afresh, so it is kept. The
 * transcript sessions are found by their {@code session_key} column, which has no index: a purge reads that table
 * once, which an operator's rare action can afford.
 */
final class LanePurge {
    private static final String FINISHED = Arrays.stream(TurnState.values()).filter(TurnState::terminal)
            .map(s -> "'" + s.name() + "'").collect(Collectors.joining(", "));
    private static final String OF_LANE = "SELECT id FROM transcript_sessions WHERE session_key = ?";
    private static final int NAMED_TURNS = 3;

    private final String laneForUpdate;
    private final String transcriptsForUpdate;

    LanePurge(Dialect dialect) {
        this.laneForUpdate = "SELECT resume_pending, resume_reason FROM sessions WHERE session_key = ?" + dialect.lockForUpdate();
        this.transcriptsForUpdate = OF_LANE + " ORDER BY id" + dialect.lockForUpdate();
    }

    private record Lane(boolean resumePending, String resumeReason) {
    }

    private record Turn(long id, String state) {
    }

    PurgeResult purge(JdbcConn c, SessionKey key) throws SQLException {
        Optional<Lane> lane = c.one(laneForUpdate, rs -> new Lane(rs.getBoolean(1), rs.getString(2)), key.value());
        if (lane.isEmpty()) {
            return new PurgeResult.NoSuchSession();
        }
        List<String> transcripts = c.list(transcriptsForUpdate, rs -> rs.getString(1), key.value());
        Optional<String> refusal = refusal(c, key, lane.get());
        if (refusal.isPresent()) {
            return new PurgeResult.Refused(refusal.get());
        }
        c.update("DELETE FROM sessions WHERE session_key = ?", key.value());
        c.update("DELETE FROM session_models WHERE session_key = ?", key.value());
        c.update("DELETE FROM chat_preferences WHERE session_key = ?", key.value());
        long turns = c.update("DELETE FROM turns WHERE session_key = ? AND state IN (" + FINISHED + ")", key.value());
        c.update("UPDATE transcript_sessions SET parent_id = NULL WHERE parent_id IN (" + OF_LANE + ")", key.value());
        long messages = c.update("DELETE FROM messages WHERE session_id IN (" + OF_LANE + ")", key.value());
        c.update("DELETE FROM transcript_sessions WHERE session_key = ?", key.value());
        return new PurgeResult.Purged(transcripts.size(), messages, turns);
    }

    /** Why the lane cannot be purged now, with the operator's next step; empty when it can. */
    private static Optional<String> refusal(JdbcConn c, SessionKey key, Lane lane) throws SQLException {
        String unfinished = " FROM turns WHERE session_key = ? AND state NOT IN (" + FINISHED + ")";
        long open = c.scalar("SELECT COUNT(*)" + unfinished, key.value());
        if (open > 0) {
            List<Turn> named = c.list("SELECT id, state" + unfinished + " ORDER BY id LIMIT " + NAMED_TURNS,
                    rs -> new Turn(rs.getLong(1), rs.getString(2)), key.value());
            String list = named.stream().map(t -> "turn " + t.id() + " " + t.state()).collect(Collectors.joining(", "));
            return Optional.of("session " + key + " - " + open + " turn(s) not finished (" + list + (open > named.size() ? ", ..." : "")
                    + "); stop or suspend the session, or wait until its turns end, then purge again");
        }
        if (lane.resumePending()) {
            return Optional.of("session " + key + " - resume-pending (" + lane.resumeReason()
                    + "): its interrupted turn is due to resume; clear its resume mark or let it resume, then purge again");
        }
        return Optional.empty();
    }
}
