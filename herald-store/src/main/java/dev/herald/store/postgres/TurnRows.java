package dev.herald.store.postgres;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The {@code turns} table: reading a row into a {@link TurnRecord}. */
final class TurnRows {
    static final String COLUMNS = """
            id, session_key, event_id, source, text, platform_message_id, reply_to_message_id, origin, state, session_id,
            outcome, reply, reply_message_id, received_at, updated_at, parts_delivered, delivery_attempts, delivery_error,
            input_tokens, output_tokens""";

    private TurnRows() {
    }

    static TurnRecord decode(ResultSet rs) throws SQLException {
        String key = rs.getString("session_key");
        String origin = rs.getString("origin");
        String state = rs.getString("state");
        return new TurnRecord(
                rs.getLong("id"),
                RowDecodeException.decoding("session_key", key, () -> new SessionKey(key)),
                rs.getString("event_id"),
                Json.source(rs.getString("source"), "source"),
                rs.getString("text"),
                rs.getString("platform_message_id"),
                rs.getString("reply_to_message_id"),
                RowDecodeException.decoding("origin", origin, () -> MessageEvent.Origin.valueOf(origin)),
                RowDecodeException.decoding("state", state, () -> TurnState.valueOf(state)),
                rs.getString("session_id"),
                rs.getString("outcome"),
                rs.getString("reply"),
                rs.getString("reply_message_id"),
                Micros.toInstant(rs.getLong("received_at")),
                Micros.toInstant(rs.getLong("updated_at")),
                rs.getInt("parts_delivered"),
                rs.getInt("delivery_attempts"),
                rs.getString("delivery_error"),
                rs.getLong("input_tokens"),
                rs.getLong("output_tokens"));
    }

    /** Names the current row for a log line when it cannot be decoded. */
    static String subject(ResultSet rs) {
        try {
            return "turn " + rs.getLong("id") + " of session " + rs.getString("session_key");
        } catch (SQLException e) {
            return "turn (id unreadable)";
        }
    }
}
