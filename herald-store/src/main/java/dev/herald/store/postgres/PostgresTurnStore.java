package dev.herald.store.postgres;

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
 * Turns on PostgreSQL. Every state change is one conditional UPDATE on the state column. The partial
 * unique index {@code turns_one_running_per_lane} makes "one RUNNING turn per lane" hold for every
 * writer on the database: of two concurrent starts on one lane the second is refused by the index.
 * Inbound dedupe is the partial unique index on (platform, platform_message_id) with
 * {@code ON CONFLICT DO NOTHING}.
 */
final class PostgresTurnStore implements TurnStore {
    private static final Logger log = LoggerFactory.getLogger(PostgresTurnStore.class);

    static final String RECEIVE = """
            INSERT INTO turns (session_key, event_id, platform, source, text, platform_message_id, reply_to_message_id,
                               origin, state, received_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'RECEIVED', ?, ?) ON CONFLICT DO NOTHING RETURNING id""";
    static final String START = """
            UPDATE turns SET state = 'RUNNING', session_id = ?, started_at = ?, updated_at = ?
            WHERE id = ? AND state = 'RECEIVED'
              AND NOT EXISTS (SELECT 1 FROM turns r WHERE r.session_key = turns.session_key AND r.state = 'RUNNING')""";
    /** Locks the running turns for the start-up sweep. */
    static final String RUNNING = """
            SELECT id, session_key, session_id, started_at, updated_at FROM turns WHERE state = 'RUNNING' ORDER BY id FOR UPDATE""";
    static final String LATEST_STARTED = "SELECT " + TurnRows.COLUMNS + """
             FROM turns WHERE session_key = ? AND state NOT IN ('RECEIVED', 'CANCELLED')
            ORDER BY id DESC LIMIT 1""";
    static final String IN_STATE = "SELECT " + TurnRows.COLUMNS + " FROM turns WHERE state = ? ORDER BY id LIMIT ?";
    static final String FIND = "SELECT " + TurnRows.COLUMNS + " FROM turns WHERE id = ?";

    private record Running(long id, String key, String sessionId, Instant startedAt) {
    }

    private final PgPool pool;
    private final Clock clock;

    PostgresTurnStore(PgPool pool, Clock clock) {
        this.pool = pool;
        this.clock = clock;
    }

    @Override
    public Optional<TurnRecord> receive(SessionKey key, MessageEvent event) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(event, "event");
        return pool.write("inbound turn of session " + key, c -> {
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
    public Optional<TurnRecord> start(long turnId, String sessionId, TranscriptRow userRow) {
        Objects.requireNonNull(sessionId, "sessionId");
        return pool.write("turn " + turnId, c -> {
            long now = Micros.of(Micros.now(clock));
            // zero when the turn is not RECEIVED, or another turn of the lane runs (seen, or refused by the index)
            if (c.updateUnlessDuplicate(START, sessionId, now, now, turnId) == 0) {
                return Optional.<TurnRecord>empty();
            }
            if (userRow != null) {
                TranscriptSql.append(c, sessionId, userRow);
            }
            return find(c, turnId);
        });
    }

    @Override
    public boolean recordReply(long turnId, String outcome, String reply) {
        return pool.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET state = 'AWAITING_DELIVERY', outcome = ?, reply = ?, updated_at = ?
                WHERE id = ? AND state = 'RUNNING'""", outcome, reply, nowMicros(), turnId) == 1);
    }

    @Override
    public boolean markDelivered(long turnId, String replyMessageId) {
        return pool.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET state = 'DELIVERED', reply_message_id = ?, updated_at = ?
                WHERE id = ? AND state = 'AWAITING_DELIVERY'""", replyMessageId, nowMicros(), turnId) == 1);
    }

    @Override
    public boolean markPartsDelivered(long turnId, int parts) {
        if (parts < 0) {
            throw new IllegalArgumentException("store - parts " + parts + " must not be negative");
        }
        return pool.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET parts_delivered = ? WHERE id = ? AND state = 'AWAITING_DELIVERY' AND parts_delivered < ?""",
                parts, turnId, parts) == 1);
    }

    @Override
    public boolean recordDeliveryFailure(long turnId, String error, boolean permanent) {
        return pool.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET delivery_attempts = delivery_attempts + 1, delivery_error = ?, updated_at = ?,
                    state = CASE WHEN ? THEN 'UNDELIVERABLE' ELSE state END
                WHERE id = ? AND state = 'AWAITING_DELIVERY'""", error, nowMicros(), permanent, turnId) == 1);
    }

    @Override
    public void addUsage(long turnId, long inputTokens, long outputTokens) {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("store - token usage must not be negative (" + inputTokens + " in, " + outputTokens + " out)");
        }
        pool.write("turn " + turnId, c -> c.update("UPDATE turns SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ?",
                inputTokens, outputTokens, turnId));
    }

    @Override
    public Optional<TurnRecord> latestStarted(SessionKey key) {
        Objects.requireNonNull(key, "key");
        return pool.read("latest turn of session " + key, c -> {
            try {
                return c.one(LATEST_STARTED, TurnRows::decode, key.value());
            } catch (RowDecodeException e) {
                throw StoreException.corruptRow("latest turn of session " + key, e.problem(), e);
            }
        });
    }

    @Override
    public boolean finish(long turnId, TurnState terminal, String outcome) {
        Objects.requireNonNull(terminal, "terminal");
        if (!terminal.terminal() || !TurnState.RUNNING.canMoveTo(terminal)) {
            throw new IllegalArgumentException("store - a running turn cannot finish as " + terminal + " (use DELIVERED, INTERRUPTED or FAILED)");
        }
        return pool.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET state = ?, outcome = ?, updated_at = ? WHERE id = ? AND state = 'RUNNING'""",
                terminal.name(), outcome, nowMicros(), turnId) == 1);
    }

    @Override
    public boolean cancel(long turnId, String why) {
        return pool.write("turn " + turnId, c -> c.update("""
                UPDATE turns SET state = 'CANCELLED', outcome = ?, updated_at = ? WHERE id = ? AND state = 'RECEIVED'""",
                why, nowMicros(), turnId) == 1);
    }

    @Override
    public Optional<TurnRecord> find(long turnId) {
        return pool.read("turn " + turnId, c -> find(c, turnId));
    }

    private static Optional<TurnRecord> find(PgConn c, long turnId) throws SQLException {
        try {
            return c.one(FIND, TurnRows::decode, turnId);
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
        return pool.read(state + " turns", c -> c.listReadable(IN_STATE, TurnRows::decode, TurnRows::subject, state.name(), limit));
    }

    @Override
    public List<SessionKey> recoverInterrupted(FreshnessWindow window, Instant now) {
        Objects.requireNonNull(window, "window");
        Instant at = now.truncatedTo(ChronoUnit.MICROS);
        return pool.write("start-up sweep of running turns", c -> {
            List<Running> running = c.list(RUNNING, PostgresTurnStore::running);
            Map<String, Boolean> freshByLane = new LinkedHashMap<>();
            for (Running turn : running) {
                c.update("UPDATE turns SET state = 'INTERRUPTED', outcome = COALESCE(outcome, 'interrupted'), updated_at = ? WHERE id = ?",
                        Micros.of(at), turn.id());
                freshByLane.merge(turn.key(), isFresh(c, turn, window, at), Boolean::logicalOr);
            }
            List<SessionKey> marked = new ArrayList<>();
            for (Map.Entry<String, Boolean> lane : freshByLane.entrySet()) {
                c.update(PostgresSessionStore.COUNT_INTERRUPTION, lane.getKey());
                if (lane.getValue() && markInterrupted(c, lane.getKey(), at)) {
                    keyOf(lane.getKey()).ifPresent(marked::add);
                }
            }
            log.info("store - start-up sweep: {} running turn(s) interrupted, {} session(s) marked resume-pending ({} lane(s) counted)",
                    running.size(), marked.size(), freshByLane.size());
            return marked;
        });
    }

    private static Running running(ResultSet rs) throws SQLException {
        Instant started = Micros.column(rs, "started_at");
        return new Running(rs.getLong("id"), rs.getString("session_key"), rs.getString("session_id"),
                started != null ? started : Micros.toInstant(rs.getLong("updated_at")));
    }

    private static Optional<SessionKey> keyOf(String raw) {
        try {
            return Optional.of(new SessionKey(raw));
        } catch (IllegalArgumentException e) {
            log.warn("store - marked a session resume-pending whose stored key {} is unreadable ({})", RowDecodeException.abbreviate(raw), e.getMessage());
            return Optional.empty();
        }
    }

    /** Fresh when the session's last non-bookkeeping row (else the turn's start) is within the window. */
    private static boolean isFresh(PgConn c, Running turn, FreshnessWindow window, Instant now) throws SQLException {
        Optional<Optional<Instant>> last = turn.sessionId() == null ? Optional.empty() : TranscriptSql.lastActivity(c, turn.sessionId());
        Instant activity = last.isPresent() ? last.get().orElse(null) : turn.startedAt();
        return window.isFresh(activity, now);
    }

    /** Resume-pending and suspended lanes keep what they have (spec B5). */
    private static boolean markInterrupted(PgConn c, String key, Instant at) throws SQLException {
        return c.update("""
                UPDATE sessions SET resume_pending = TRUE, resume_reason = ?, resume_marked_at = ?
                WHERE session_key = ? AND NOT resume_pending AND NOT suspended""",
                ResumeReason.RESTART_INTERRUPTED.code(), Micros.of(at), key) == 1;
    }

    private long nowMicros() {
        return Micros.of(clock.instant());
    }
}
