package dev.herald.store.jdbc;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.CutOff;
import dev.herald.core.turn.RunningTurn;
import dev.herald.core.turn.TurnChange;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.TurnStore;
import dev.herald.core.turn.TurnTransition;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns, the same on both databases. Every state change is {@link #transition}: one conditional UPDATE whose
 * target and expected state come from a row of {@link TurnTransition}'s table, so the SQL cannot allow a move the
 * table does not. The partial unique index {@code turns_one_running_per_lane} backs the one-RUNNING-turn-per-lane
 * rule (of two concurrent starts on one lane the second is refused by the index), and inbound dedupe is the
 * partial unique index on (platform, platform_message_id) with {@code ON CONFLICT DO NOTHING}.
 *
 * <p>Written once for both databases; the {@link Dialect} gives the lock a turn's first transcript row is appended
 * under, and {@link Transactions} how work runs.
 */
public class JdbcTurnStore<C extends JdbcConn> implements TurnStore {
    private static final String COLUMNS = """
            id, session_key, event_id, source, text, platform_message_id, reply_to_message_id, origin, state, session_id,
            outcome, error, reply, reply_message_id, received_at, updated_at, parts_delivered, sending_part, part_message_ids,
            delivery_attempts, delivery_error, input_tokens, output_tokens""";

    /** Stores an inbound message as a RECEIVED turn and hands back its id; no row for a message stored before. */
    static final String RECEIVE = """
            INSERT INTO turns (session_key, event_id, platform, source, text, platform_message_id, reply_to_message_id,
                               origin, state, received_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'RECEIVED', ?, ?) ON CONFLICT DO NOTHING RETURNING id""";
    public static final String LATEST_STARTED = "SELECT " + COLUMNS + """
             FROM turns WHERE session_key = ? AND state NOT IN ('RECEIVED', 'CANCELLED')
            ORDER BY id DESC LIMIT 1""";
    public static final String IN_STATE = "SELECT " + COLUMNS + " FROM turns WHERE state = ? ORDER BY id LIMIT ?";
    public static final String FIND = "SELECT " + COLUMNS + " FROM turns WHERE id = ?";
    /** Every RUNNING turn, through the partial index turns_one_running_per_lane (at most one per lane). */
    public static final String RUNNING = "SELECT id, session_key, session_id, started_at, updated_at FROM turns WHERE state = 'RUNNING' ORDER BY id";
    /** Marks a cut-off lane resume-pending unless it is resume-pending or suspended already (spec B5). */
    static final String MARK_CUT_OFF = """
            UPDATE sessions SET resume_pending = TRUE, resume_reason = ?, resume_marked_at = ?
            WHERE session_key = ? AND NOT resume_pending AND NOT suspended""";
    /** The conditional UPDATE of each row of the transition table. */
    private static final Map<TurnTransition, String> TRANSITIONS = transitions();
    /** The START row's UPDATE (for the query-plan tests). */
    public static final String START = TRANSITIONS.get(TurnTransition.START);

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final Transactions<C> tx;
    private final Clock clock;
    private final String appendGuard;

    public JdbcTurnStore(Transactions<C> tx, Dialect dialect, Clock clock) {
        this.tx = tx;
        this.clock = clock;
        this.appendGuard = TranscriptTables.SESSION_EXISTS + dialect.lockForAppend();
    }

    /**
     * The UPDATE of one row of the table: the target state and the expected state are the row's, a move into a
     * state that is one per lane also requires that no other turn of the lane is in it, and the fields a
     * {@link TurnChange} sets are written only when given (parameters: updated_at, session_id, started_at, outcome,
     * reply, reply_message_id, error, delivery_error, attempts to add, id).
     */
    static String transitionSql(TurnTransition t) {
        String sql = "UPDATE turns SET state = '" + t.to().name() + "', updated_at = ?, session_id = COALESCE(?, session_id), "
                + "started_at = COALESCE(?, started_at), outcome = COALESCE(?, outcome), reply = COALESCE(?, reply), "
                + "reply_message_id = COALESCE(?, reply_message_id), error = COALESCE(?, error), "
                + "delivery_error = COALESCE(?, delivery_error), delivery_attempts = delivery_attempts + ?"
                // leaving delivery ends the part under way: nothing of a delivered or refused reply is in doubt
                + (t.from() == TurnState.AWAITING_DELIVERY ? ", sending_part = 0" : "")
                + " WHERE id = ? AND state = '" + t.from().name() + "'";
        if (t.to().onePerLane()) {
            sql += " AND NOT EXISTS (SELECT 1 FROM turns r WHERE r.session_key = turns.session_key AND r.state = '" + t.to().name() + "')";
        }
        return sql;
    }

    private static Map<TurnTransition, String> transitions() {
        Map<TurnTransition, String> sql = new EnumMap<>(TurnTransition.class);
        for (TurnTransition t : TurnTransition.values()) {
            sql.put(t, transitionSql(t));
        }
        return sql;
    }

    @Override
    public Optional<TurnRecord> receive(SessionKey key, MessageEvent event) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(event, "event");
        return tx.write("inbound turn of session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<Long> id = c.one(RECEIVE, rs -> rs.getLong(1), key.value(), event.eventId(), event.source().platform().id(),
                    Json.source(event.source()), event.text(), event.messageId(), event.replyToMessageId(), event.origin().name(),
                    Micros.of(now), Micros.of(now));
            if (id.isEmpty()) {
                log.debug("store - dropped duplicate inbound message {} on {} for session {}", event.messageId(), event.source().platform(), key);
                return Optional.<TurnRecord>empty();
            }
            return Optional.of(new TurnRecord(id.get(), key, event.eventId(), event.source(), event.text(), event.messageId(),
                    event.replyToMessageId(), event.origin(), TurnState.RECEIVED, null, null, null, null, now, now));
        });
    }

    @Override
    public boolean transition(long turnId, TurnTransition transition, TurnChange change) {
        Objects.requireNonNull(transition, "transition");
        Objects.requireNonNull(change, "change");
        if (transition.to() == TurnState.RUNNING && change.sessionId() == null) {
            throw new IllegalArgumentException("store - turn " + turnId + " cannot start without a transcript session");
        }
        return tx.write("turn " + turnId, c -> {
            // zero when the turn is not in the row's from-state, or (a start) another turn of the lane runs (seen, or refused by the index)
            if (move(c, turnId, transition, change) == 0) {
                return false;
            }
            if (change.userRow() != null && change.sessionId() != null) {
                TranscriptTables.append(c, appendGuard, change.sessionId(), change.userRow());
            }
            return true;
        });
    }

    private int move(C c, long turnId, TurnTransition t, TurnChange change) throws SQLException {
        long now = nowMicros();
        return c.updateUnlessDuplicate(TRANSITIONS.get(t), now, change.sessionId(), t.to() == TurnState.RUNNING ? now : null,
                change.outcome(), change.reply(), change.replyMessageId(), change.error(), change.deliveryError(),
                change.deliveryError() == null ? 0 : 1, turnId);
    }

    @Override
    public boolean recordSendIntent(long turnId, int part) {
        if (part < 1) {
            throw new IllegalArgumentException("store - part " + part + " must be at least 1");
        }
        return tx.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET sending_part = ? WHERE id = ? AND state = 'AWAITING_DELIVERY' AND parts_delivered < ?""",
                part, turnId, part) == 1);
    }

    @Override
    public boolean recordPartSent(long turnId, int part, String messageId) {
        if (part < 1) {
            throw new IllegalArgumentException("store - part " + part + " must be at least 1");
        }
        return tx.write("turn " + turnId, c -> {
            Optional<String> ids = c.one("SELECT part_message_ids FROM turns WHERE id = ? AND state = 'AWAITING_DELIVERY' AND parts_delivered < ?",
                    rs -> rs.getString(1) == null ? "" : rs.getString(1), turnId, part);
            if (ids.isEmpty()) {
                return false;
            }
            List<String> sent = new ArrayList<>(Json.strings(ids.get()));
            sent.add(messageId == null ? "" : messageId);
            return c.update("""
                    UPDATE turns SET parts_delivered = ?, sending_part = 0, part_message_ids = ?
                    WHERE id = ? AND state = 'AWAITING_DELIVERY' AND parts_delivered < ?""", part, Json.strings(sent), turnId, part) == 1;
        });
    }

    @Override
    public boolean recordDeliveryFailure(long turnId, String error) {
        return tx.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET delivery_attempts = delivery_attempts + 1, delivery_error = ?, updated_at = ?
                WHERE id = ? AND state = 'AWAITING_DELIVERY'""", error, nowMicros(), turnId) == 1);
    }

    @Override
    public void addUsage(long turnId, long inputTokens, long outputTokens) {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("store - token usage must not be negative (" + inputTokens + " in, " + outputTokens + " out)");
        }
        tx.write("turn " + turnId, c -> c.update("UPDATE turns SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ?",
                inputTokens, outputTokens, turnId));
    }

    @Override
    public Optional<TurnRecord> latestStarted(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return tx.read("latest turn of session " + key, c -> {
            try {
                return c.one(LATEST_STARTED, JdbcTurnStore::decode, key.value());
            } catch (RowDecodeException e) {
                throw StoreException.corruptRow("latest turn of session " + key, e.problem(), e);
            }
        });
    }

    @Override
    public Optional<TurnRecord> find(long turnId) {
        return tx.read("turn " + turnId, c -> find(c, turnId));
    }

    private static Optional<TurnRecord> find(JdbcConn c, long turnId) throws SQLException {
        try {
            return c.one(FIND, JdbcTurnStore::decode, turnId);
        } catch (RowDecodeException e) {
            throw StoreException.corruptRow("turn " + turnId, e.problem(), e);
        }
    }

    @Override
    public List<TurnRecord> inState(TurnState state, int limit) {
        Objects.requireNonNull(state, "state");
        if (limit < 1) {
            throw new IllegalArgumentException("store - limit " + limit + " must be at least 1");
        }
        return tx.read(state + " turns", c -> c.listReadable(IN_STATE, JdbcTurnStore::decode, JdbcTurnStore::subject, state.name(), limit));
    }

    @Override
    public List<RunningTurn> running() {
        return tx.read("running turns", c -> {
            List<RunningTurn> found = new ArrayList<>();
            for (Running r : c.listReadable(RUNNING, JdbcTurnStore::running, JdbcTurnStore::subject)) {
                Optional<Optional<Instant>> last = r.sessionId() == null ? Optional.empty() : TranscriptTables.lastActivity(c, r.sessionId());
                found.add(new RunningTurn(r.id(), r.key(), r.sessionId(), r.startedAt(), last.isPresent(), last.flatMap(x -> x).orElse(null)));
            }
            return found;
        });
    }

    private record Running(long id, SessionKey key, String sessionId, Instant startedAt) {
    }

    private static Running running(ResultSet rs) throws SQLException {
        String key = rs.getString("session_key");
        Instant started = Micros.column(rs, "started_at");
        return new Running(rs.getLong("id"), RowDecodeException.decoding("session_key", key, () -> new SessionKey(key)),
                rs.getString("session_id"), started != null ? started : Micros.toInstant(rs.getLong("updated_at")));
    }

    @Override
    public CutOff.Result interrupt(List<CutOff> cutOffs) {
        List<CutOff> ordered = cutOffs.stream().sorted(Comparator.comparingLong(x -> x.turn().id())).toList();
        return tx.write("cut-off of " + ordered.size() + " running turn(s)", c -> {
            List<RunningTurn> interrupted = new ArrayList<>();
            List<SessionKey> marked = new ArrayList<>();
            long now = nowMicros();
            for (CutOff cut : ordered) {
                RunningTurn t = cut.turn();
                if (move(c, t.id(), TurnTransition.INTERRUPT, new TurnChange(null, null, "interrupted", null, null, null, null)) == 0) {
                    continue; // it ended by itself meanwhile
                }
                interrupted.add(t);
                c.update(SessionTable.COUNT_INTERRUPTION, t.key().value());
                if (cut.mark() != null && c.update(MARK_CUT_OFF, cut.mark().code(), now, t.key().value()) == 1) {
                    marked.add(t.key());
                }
            }
            return new CutOff.Result(interrupted, marked);
        });
    }

    private long nowMicros() {
        return Micros.of(clock.instant());
    }

    private static TurnRecord decode(ResultSet rs) throws SQLException {
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
                rs.getString("error"),
                rs.getString("reply"),
                rs.getString("reply_message_id"),
                Micros.toInstant(rs.getLong("received_at")),
                Micros.toInstant(rs.getLong("updated_at")),
                rs.getInt("parts_delivered"),
                rs.getInt("sending_part"),
                Json.strings(rs.getString("part_message_ids")),
                rs.getInt("delivery_attempts"),
                rs.getString("delivery_error"),
                rs.getLong("input_tokens"),
                rs.getLong("output_tokens"));
    }

    /** Names the current row for a log line when it cannot be decoded. */
    private static String subject(ResultSet rs) {
        try {
            return "turn " + rs.getLong("id") + " of session " + rs.getString("session_key");
        } catch (SQLException e) {
            return "turn (id unreadable)";
        }
    }
}
