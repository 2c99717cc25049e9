package dev.herald.store.jdbc;

import dev.herald.core.continuity.FreshnessWindow;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.TurnStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns, the same on both databases. Every state change is one conditional UPDATE on the state column;
 * the partial unique index {@code turns_one_running_per_lane} backs the one-RUNNING-turn-per-lane rule
 * (of two concurrent starts on one lane the second is refused by the index), and inbound dedupe is the
 * partial unique index on (platform, platform_message_id) with {@code ON CONFLICT DO NOTHING}.
 *
 * <p>A dialect says how it runs work ({@link Transactions}), how it learns a new turn's id, how it keeps
 * an append to a transcript apart from others, and the SQL of the start-up sweep (whether it locks the
 * running turns; how it writes a flag).
 */
public abstract class JdbcTurnStore<C extends JdbcConn> implements TurnStore {
    private static final String COLUMNS = """
            id, session_key, event_id, source, text, platform_message_id, reply_to_message_id, origin, state, session_id,
            outcome, reply, reply_message_id, received_at, updated_at, parts_delivered, delivery_attempts, delivery_error,
            input_tokens, output_tokens""";

    /** Stores an inbound message as a RECEIVED turn; changes nothing for a message stored before. */
    protected static final String RECEIVE = """
            INSERT INTO turns (session_key, event_id, platform, source, text, platform_message_id, reply_to_message_id,
                               origin, state, received_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'RECEIVED', ?, ?) ON CONFLICT DO NOTHING""";
    public static final String START = """
            UPDATE turns SET state = 'RUNNING', session_id = ?, started_at = ?, updated_at = ?
            WHERE id = ? AND state = 'RECEIVED'
              AND NOT EXISTS (SELECT 1 FROM turns r WHERE r.session_key = turns.session_key AND r.state = 'RUNNING')""";
    public static final String LATEST_STARTED = "SELECT " + COLUMNS + """
             FROM turns WHERE session_key = ? AND state NOT IN ('RECEIVED', 'CANCELLED')
            ORDER BY id DESC LIMIT 1""";
    public static final String IN_STATE = "SELECT " + COLUMNS + " FROM turns WHERE state = ? ORDER BY id LIMIT ?";
    public static final String FIND = "SELECT " + COLUMNS + " FROM turns WHERE id = ?";

    private record Running(long id, String key, String sessionId, Instant startedAt) {
    }

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final Transactions<C> tx;
    private final Clock clock;
    private final String appendGuard;
    private final String running;
    private final String markInterrupted;

    /**
     * @param lockSession     appended to the SELECT that finds a transcript session before a turn's first row
     *                        is appended to it ({@link TranscriptTables#append}): a row lock that keeps other
     *                        appends out, or empty where writes are serial anyway
     * @param running         selects {@code id, session_key, session_id, started_at, updated_at} of every RUNNING turn
     * @param markInterrupted marks lane {@code ?} (third) resume-pending with reason and time {@code ?, ?} (first,
     *                        second) unless it is resume-pending or suspended already
     */
    protected JdbcTurnStore(Transactions<C> tx, Clock clock, String lockSession, String running, String markInterrupted) {
        this.tx = tx;
        this.clock = clock;
        this.appendGuard = TranscriptTables.SESSION_EXISTS + lockSession;
        this.running = running;
        this.markInterrupted = markInterrupted;
    }

    /** Runs {@link #RECEIVE} with {@code args}: the new turn's id, or empty when the message was stored before. */
    protected abstract Optional<Long> insertReceived(C c, Object... args) throws SQLException;

    @Override
    public final Optional<TurnRecord> receive(SessionKey key, MessageEvent event) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(event, "event");
        return tx.write("inbound turn of session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<Long> id = insertReceived(c, key.value(), event.eventId(), event.source().platform().id(),
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
    public final Optional<TurnRecord> start(long turnId, String sessionId, TranscriptRow userRow) {
        Objects.requireNonNull(sessionId, "sessionId");
        return tx.write("turn " + turnId, c -> {
            long now = Micros.of(Micros.now(clock));
            // zero when the turn is not RECEIVED, or another turn of the lane runs (seen, or refused by the index)
            if (c.updateUnlessDuplicate(START, sessionId, now, now, turnId) == 0) {
                return Optional.<TurnRecord>empty();
            }
            if (userRow != null) {
                TranscriptTables.append(c, appendGuard, sessionId, userRow);
            }
            return find(c, turnId);
        });
    }

    @Override
    public final boolean recordReply(long turnId, String outcome, String reply) {
        return tx.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET state = 'AWAITING_DELIVERY', outcome = ?, reply = ?, updated_at = ?
                WHERE id = ? AND state = 'RUNNING'""", outcome, reply, nowMicros(), turnId) == 1);
    }

    @Override
    public final boolean markDelivered(long turnId, String replyMessageId) {
        return tx.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET state = 'DELIVERED', reply_message_id = ?, updated_at = ?
                WHERE id = ? AND state = 'AWAITING_DELIVERY'""", replyMessageId, nowMicros(), turnId) == 1);
    }

    @Override
    public final boolean markPartsDelivered(long turnId, int parts) {
        if (parts < 0) {
            throw new IllegalArgumentException("store - parts " + parts + " must not be negative");
        }
        return tx.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET parts_delivered = ? WHERE id = ? AND state = 'AWAITING_DELIVERY' AND parts_delivered < ?""",
                parts, turnId, parts) == 1);
    }

    /** {@code permanent} is bound as a Boolean: PostgreSQL's boolean, SQLite's driver binds it as 1 or 0. */
    @Override
    public final boolean recordDeliveryFailure(long turnId, String error, boolean permanent) {
        return tx.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET delivery_attempts = delivery_attempts + 1, delivery_error = ?, updated_at = ?,
                    state = CASE WHEN ? THEN 'UNDELIVERABLE' ELSE state END
                WHERE id = ? AND state = 'AWAITING_DELIVERY'""", error, nowMicros(), permanent, turnId) == 1);
    }

    @Override
    public final void addUsage(long turnId, long inputTokens, long outputTokens) {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("store - token usage must not be negative (" + inputTokens + " in, " + outputTokens + " out)");
        }
        tx.write("turn " + turnId, c -> c.update("UPDATE turns SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ?",
                inputTokens, outputTokens, turnId));
    }

    @Override
    public final Optional<TurnRecord> latestStarted(SessionKey key) {
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
    public final boolean finish(long turnId, TurnState terminal, String outcome) {
        Objects.requireNonNull(terminal, "terminal");
        if (!terminal.terminal() || !TurnState.RUNNING.canMoveTo(terminal)) {
            throw new IllegalArgumentException("store - a running turn cannot finish as " + terminal + " (use DELIVERED, INTERRUPTED or FAILED)");
        }
        return tx.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET state = ?, outcome = ?, updated_at = ? WHERE id = ? AND state = 'RUNNING'""",
                terminal.name(), outcome, nowMicros(), turnId) == 1);
    }

    @Override
    public final boolean cancel(long turnId, String why) {
        return tx.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET state = 'CANCELLED', outcome = ?, updated_at = ? WHERE id = ? AND state = 'RECEIVED'""",
                why, nowMicros(), turnId) == 1);
    }

    @Override
    public final Optional<TurnRecord> find(long turnId) {
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
    public final List<TurnRecord> inState(TurnState state, int limit) {
        Objects.requireNonNull(state, "state");
        if (limit < 1) {
            throw new IllegalArgumentException("store - limit " + limit + " must be at least 1");
        }
        return tx.read(state + " turns", c -> c.listReadable(IN_STATE, JdbcTurnStore::decode, JdbcTurnStore::subject, state.name(), limit));
    }

    @Override
    public final List<SessionKey> recoverInterrupted(FreshnessWindow window, Instant now) {
        Objects.requireNonNull(window, "window");
        Instant at = now.truncatedTo(ChronoUnit.MICROS);
        return tx.write("start-up sweep of running turns", c -> {
            List<Running> turns = c.list(running, JdbcTurnStore::running);
            Map<String, Boolean> freshByLane = new LinkedHashMap<>();
            for (Running turn : turns) {
                c.update("UPDATE turns SET state = 'INTERRUPTED', outcome = COALESCE(outcome, 'interrupted'), updated_at = ? WHERE id = ?",
                        Micros.of(at), turn.id());
                freshByLane.merge(turn.key(), isFresh(c, turn, window, at), Boolean::logicalOr);
            }
            List<SessionKey> marked = new ArrayList<>();
            for (Map.Entry<String, Boolean> lane : freshByLane.entrySet()) {
                c.update(SessionTable.COUNT_INTERRUPTION, lane.getKey());
                if (lane.getValue() && c.update(markInterrupted, ResumeReason.RESTART_INTERRUPTED.code(), Micros.of(at), lane.getKey()) == 1) {
                    keyOf(lane.getKey()).ifPresent(marked::add);
                }
            }
            log.info("store - start-up sweep: {} running turn(s) interrupted, {} session(s) marked resume-pending ({} lane(s) counted)",
                    turns.size(), marked.size(), freshByLane.size());
            return marked;
        });
    }

    private static Running running(ResultSet rs) throws SQLException {
        Instant started = Micros.column(rs, "started_at");
        return new Running(rs.getLong("id"), rs.getString("session_key"), rs.getString("session_id"),
                started != null ? started : Micros.toInstant(rs.getLong("updated_at")));
    }

    private Optional<SessionKey> keyOf(String raw) {
        try {
            return Optional.of(new SessionKey(raw));
        } catch (IllegalArgumentException e) {
            log.warn("store - marked a session resume-pending whose stored key {} is unreadable ({})", RowDecodeException.abbreviate(raw), e.getMessage());
            return Optional.empty();
        }
    }

    /** Fresh when the session's last non-bookkeeping row (else the turn's start) is within the window. */
    private static boolean isFresh(JdbcConn c, Running turn, FreshnessWindow window, Instant now) throws SQLException {
        Optional<Optional<Instant>> last = turn.sessionId() == null ? Optional.empty() : TranscriptTables.lastActivity(c, turn.sessionId());
        Instant activity = last.isPresent() ? last.get().orElse(null) : turn.startedAt();
        return window.isFresh(activity, now);
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
    private static String subject(ResultSet rs) {
        try {
            return "turn " + rs.getLong("id") + " of session " + rs.getString("session_key");
        } catch (SQLException e) {
            return "turn (id unreadable)";
        }
    }
}
