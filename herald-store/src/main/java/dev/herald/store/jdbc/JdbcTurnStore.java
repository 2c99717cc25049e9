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
            delivery_attempts, delivery_error, input_tokens, output_tokens, owner_node, attachments, reply_files""";

    /** Stores an inbound message as a RECEIVED turn and hands back its id; no row for a message stored before. */
    static final String RECEIVE = """
            INSERT INTO turns (session_key, event_id, platform, source, text, platform_message_id, reply_to_message_id,
                               origin, state, received_at, updated_at, owner_node, attachments, user_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'RECEIVED', ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id""";
    public static final String LATEST_STARTED = "SELECT " + COLUMNS + """
             FROM turns WHERE session_key = ? AND state NOT IN ('RECEIVED', 'CANCELLED')
            ORDER BY id DESC LIMIT 1""";
    public static final String LATEST_STARTED_BEFORE = "SELECT " + COLUMNS + """
             FROM turns WHERE session_key = ? AND id < ? AND state NOT IN ('RECEIVED', 'CANCELLED')
            ORDER BY id DESC LIMIT 1""";
    /**
     * The condition of the partial index turns_by_state (schema: SQLite V12, PostgreSQL V8), which holds only the turns
     * that are not finished. A query reaches that index only when its WHERE clause names this condition as it is
     * written in the index (SQLite matches the term itself), so every query for unfinished turns by state adds it.
     */
    static final String UNFINISHED = unfinished("state");
    public static final String IN_STATE = "SELECT " + COLUMNS + " FROM turns WHERE state = ? AND " + UNFINISHED + " ORDER BY id LIMIT ?";
    static final String IN_FINISHED_STATE = "SELECT " + COLUMNS + " FROM turns WHERE state = ? ORDER BY id LIMIT ?";
    public static final String FIND = "SELECT " + COLUMNS + " FROM turns WHERE id = ?";
    /** Through turns_by_lane. */
    public static final String RESUME_AFTER = "SELECT " + COLUMNS
            + " FROM turns WHERE session_key = ? AND id > ? AND origin = 'RESUME' ORDER BY id LIMIT 1";
    /** Through the unique index turns_platform_message (the durable dedupe). */
    public static final String FIND_BY_MESSAGE = "SELECT " + COLUMNS + " FROM turns WHERE platform = ? AND platform_message_id = ?";
    /** Every RUNNING turn, through a partial index (turns_one_running_per_lane, at most one per lane, or turns_by_state). */
    public static final String RUNNING = "SELECT id, session_key, session_id, started_at, updated_at, owner_node FROM turns WHERE state = 'RUNNING' AND "
            + UNFINISHED + " ORDER BY id";
    /** Marks a cut-off lane resume-pending unless it is resume-pending or suspended already (spec B5). */
    static final String MARK_CUT_OFF = """
            UPDATE sessions SET resume_pending = TRUE, resume_reason = ?, resume_marked_at = ?
            WHERE session_key = ? AND NOT resume_pending AND NOT suspended""";
    /**
     * A node's fence on a turn it moves or sends (parameters: node, node, node): the turn is the node's and the node is
     * not gone, or the turn's owner is gone (or was never recorded). A node that was judged dead passes no fence.
     */
    static final String FENCE = """
             AND (turns.owner_node IS NULL
                  OR turns.owner_node = ? AND EXISTS (SELECT 1 FROM nodes m WHERE m.node_id = ? AND m.state <> 'gone')
                  OR turns.owner_node <> ? AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = turns.owner_node AND n.state <> 'gone'))""";
    /** A node may cancel a waiting turn while it is not gone (parameter: node). */
    static final String LIVE = " AND EXISTS (SELECT 1 FROM nodes m WHERE m.node_id = ? AND m.state <> 'gone')";
    private static final String LANE_OF_TURN = "(SELECT session_key FROM turns WHERE id = ?)";
    /**
     * A START by a node first takes the session's lease (parameters: node, turn id, node, node), see {@link Leases#take}.
     * Zero rows: another node holds it, and the turn is left waiting for that node.
     */
    public static final String TAKE_LEASE = Leases.take(LANE_OF_TURN, false);
    /** The conditional UPDATE of each row of the transition table. */
    private static final Map<TurnTransition, String> TRANSITIONS = transitions(false);
    /** The same, made by a node (fenced; a START records the node as the turn's owner). */
    private static final Map<TurnTransition, String> FENCED = transitions(true);
    /** The START row's UPDATE (for the query-plan tests). */
    public static final String START = TRANSITIONS.get(TurnTransition.START);

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final Transactions<C> tx;
    private final Clock clock;
    private final String appendGuard;
    private final String claimRows;
    /** Locks the turn's lane row before a START takes its lease (parameter: turn id); null where writes are serial. */
    private final String lockLane;
    private final HistoryCache cache;

    public JdbcTurnStore(Transactions<C> tx, Dialect dialect, Clock clock) {
        this(tx, dialect, clock, new HistoryCache());
    }

    /** With the transcript cache of the transcript store, which a start's user row is written through to. */
    public JdbcTurnStore(Transactions<C> tx, Dialect dialect, Clock clock, HistoryCache cache) {
        this.tx = tx;
        this.cache = java.util.Objects.requireNonNull(cache, "cache");
        this.clock = clock;
        this.appendGuard = TranscriptTables.SESSION_EXISTS + dialect.lockForAppend();
        this.claimRows = dialect.claimRows();
        this.lockLane = Leases.lock(LANE_OF_TURN, dialect.lockForUpdate());
    }

    /**
     * The UPDATE of one row of the table: the target state and the expected state are the row's, a move into a
     * state that is one per lane also requires that no other turn of the lane is in it, and the fields a
     * {@link TurnChange} sets are written only when given (parameters: updated_at, owner_node, session_id, started_at, outcome,
     * reply, reply_message_id, error, delivery_error, attempts to add, for a cancel whether the message is withdrawn and for a
     * recorded reply the part under way (0 or 1), id).
     */
    static String transitionSql(TurnTransition t, boolean fenced) {
        String sql = "UPDATE turns SET state = '" + t.to().name() + "', updated_at = ?, owner_node = COALESCE(?, owner_node), "
                + "session_id = COALESCE(?, session_id), "
                + "started_at = COALESCE(?, started_at), outcome = COALESCE(?, outcome), reply = COALESCE(?, reply), "
                + "reply_message_id = COALESCE(?, reply_message_id), error = COALESCE(?, error), "
                + "delivery_error = COALESCE(?, delivery_error), delivery_attempts = delivery_attempts + ?"
                // leaving delivery ends the part under way: nothing of a delivered or refused reply is in doubt
                + (t.from() == TurnState.AWAITING_DELIVERY ? ", sending_part = 0" : "")
                // a withdrawn message gives its platform id back, so that the sender's retry is stored (not dropped as a duplicate)
                + (t == TurnTransition.CANCEL ? ", platform_message_id = CASE WHEN ? = 1 THEN NULL ELSE platform_message_id END" : "")
                // a reply recorded with its first part's send intent (Turns.recordReplyAndSend)
                + (t == TurnTransition.RECORD_REPLY ? ", sending_part = ?" : "")
                + " WHERE id = ? AND state = '" + t.from().name() + "'";
        if (t.to().onePerLane()) {
            sql += " AND NOT EXISTS (SELECT 1 FROM turns r WHERE r.session_key = turns.session_key AND r.state = '" + t.to().name() + "')";
        }
        if (fenced && t.from() != TurnState.RECEIVED) {
            sql += FENCE;
        } else if (fenced && t != TurnTransition.START) {
            sql += LIVE; // a START is fenced by the session's lease, taken in the same transaction
        }
        return sql;
    }

    private static Map<TurnTransition, String> transitions(boolean fenced) {
        Map<TurnTransition, String> sql = new EnumMap<>(TurnTransition.class);
        for (TurnTransition t : TurnTransition.values()) {
            sql.put(t, transitionSql(t, fenced));
        }
        return sql;
    }

    @Override
    public Optional<TurnRecord> receive(SessionKey key, MessageEvent event) {
        return store(key, event, null);
    }

    @Override
    public Optional<TurnRecord> receive(SessionKey key, MessageEvent event, String node) {
        return store(key, event, node);
    }

    private Optional<TurnRecord> store(SessionKey key, MessageEvent event, String node) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(event, "event");
        return tx.write("inbound turn of session " + key, c -> {
            Instant now = Micros.now(clock);
            Optional<Long> id = c.one(RECEIVE, rs -> rs.getLong(1), key.value(), event.eventId(), event.source().platform().id(),
                    Json.source(event.source()), event.text(), event.messageId(), event.replyToMessageId(), event.origin().name(),
                    Micros.of(now), Micros.of(now), node, Json.attachments(event.media()), event.source().userId());
            if (id.isEmpty()) {
                log.debug("store - dropped duplicate inbound message {} on {} for session {}", event.messageId(), event.source().platform(), key);
                return Optional.<TurnRecord>empty();
            }
            return Optional.of(new TurnRecord(id.get(), key, event.eventId(), event.source(), event.text(), event.messageId(),
                    event.replyToMessageId(), event.origin(), TurnState.RECEIVED, null, null, null, null, null, now, now, 0, 0, null, 0,
                    null, 0, 0, node, event.media()));
        });
    }

    @Override
    public boolean transition(long turnId, TurnTransition transition, TurnChange change) {
        Objects.requireNonNull(transition, "transition");
        Objects.requireNonNull(change, "change");
        if (transition.to() == TurnState.RUNNING && change.sessionId() == null) {
            throw new IllegalArgumentException("store - turn " + turnId + " cannot start without a transcript session");
        }
        TranscriptRow[] appended = new TranscriptRow[1];
        boolean moved = tx.write("turn " + turnId, c -> {
            appended[0] = null; // a write may run again after a lost race
            if (transition == TurnTransition.START && change.node() != null) {
                if (lockLane != null) {
                    c.one(lockLane, rs -> rs.getInt(1), turnId); // see Leases: the take below judges the lane after the lock
                }
                if (c.update(TAKE_LEASE, change.node(), turnId, change.node(), change.node()) == 0) {
                    return false; // another node holds the session's lease (or this one is not running)
                }
            }
            // zero when the turn is not in the row's from-state, or (a start) another turn of the lane runs (seen, or refused by the index)
            if (move(c, turnId, transition, change) == 0) {
                return false;
            }
            if (change.touchedBy() != null) {
                SessionTable.touch(c, SessionTable.TOUCH_BY_TURN, change.touchedBy(), Micros.now(clock), turnId);
            }
            if (change.userRow() != null && change.sessionId() != null) {
                appended[0] = TranscriptTables.append(c, appendGuard, change.sessionId(), change.userRow());
            }
            return true;
        });
        if (moved && appended[0] != null) {
            cache.appended(change.sessionId(), appended[0]);
        }
        return moved;
    }

    private int move(C c, long turnId, TurnTransition t, TurnChange change) throws SQLException {
        long now = nowMicros();
        String node = change.node();
        List<Object> args = new ArrayList<>();
        args.add(now);
        args.add(t == TurnTransition.START ? node : null);
        args.addAll(java.util.Arrays.asList(change.sessionId(), t.to() == TurnState.RUNNING ? now : null, change.outcome(), change.reply(),
                change.replyMessageId(), change.error(), change.deliveryError(), change.deliveryError() == null ? 0 : 1));
        if (t == TurnTransition.CANCEL) {
            args.add(change.withdrawn() ? 1 : 0);
        } else if (t == TurnTransition.RECORD_REPLY) {
            args.add(change.sendsFirstPart() ? 1 : 0);
        }
        args.add(turnId);
        if (node != null && t.from() != TurnState.RECEIVED) {
            args.addAll(List.of(node, node, node));
        } else if (node != null && t != TurnTransition.START) {
            args.add(node);
        }
        return c.updateUnlessDuplicate((node == null ? TRANSITIONS : FENCED).get(t), args.toArray());
    }

    @Override
    public boolean recordSendIntent(long turnId, int part) {
        return sendIntent(turnId, part, null);
    }

    @Override
    public boolean recordSendIntent(long turnId, int part, String node) {
        return sendIntent(turnId, part, node);
    }

    @Override
    public boolean recordReplyFiles(long turnId, List<dev.herald.core.platform.OutboundFile> files) {
        return tx.write("turn " + turnId, c -> c.update("UPDATE turns SET reply_files = ? WHERE id = ? AND state = 'RUNNING'",
                Json.files(files), turnId) == 1);
    }

    private boolean sendIntent(long turnId, int part, String node) {
        if (part < 1) {
            throw new IllegalArgumentException("store - part " + part + " must be at least 1");
        }
        String sql = "UPDATE turns SET sending_part = ?, owner_node = COALESCE(?, owner_node) WHERE id = ? AND state = 'AWAITING_DELIVERY'"
                + " AND parts_delivered < ?";
        return tx.write("turn " + turnId, c -> node == null ? c.update(sql, part, null, turnId, part) == 1
                : c.update(sql + FENCE, part, node, turnId, part, node, node, node) == 1);
    }

    @Override
    public boolean recordPartSent(long turnId, int part, String messageId) {
        return partSent(turnId, part, messageId, null);
    }

    @Override
    public boolean recordPartSent(long turnId, int part, String messageId, String node) {
        return partSent(turnId, part, messageId, node);
    }

    private boolean partSent(long turnId, int part, String messageId, String node) {
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
            String update = """
                    UPDATE turns SET parts_delivered = ?, sending_part = 0, part_message_ids = ?
                    WHERE id = ? AND state = 'AWAITING_DELIVERY' AND parts_delivered < ?""";
            return node == null ? c.update(update, part, Json.strings(sent), turnId, part) == 1
                    : c.update(update + FENCE, part, Json.strings(sent), turnId, part, node, node, node) == 1;
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
        tx.writeSoon("turn " + turnId, c -> c.update("UPDATE turns SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ?",
                inputTokens, outputTokens, turnId), null);
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
    public List<TurnRecord> startedSince(SessionKey key, Instant since, int limit) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(since, "since");
        return tx.read("turns of session " + key + " since " + since, c -> c.listReadable("SELECT " + COLUMNS
                + " FROM turns WHERE session_key = ? AND started_at >= ? AND state NOT IN ('RECEIVED', 'CANCELLED') ORDER BY id DESC LIMIT ?",
                JdbcTurnStore::decode, rs -> "a turn of session " + key, key.value(), Micros.of(since), Math.max(0, limit)));
    }

    @Override
    public Map<String, dev.herald.core.turn.SenderUsage> usage(Map<String, List<dev.herald.core.turn.SenderUsage.Sender>> groups,
            Instant dayStart, Instant since) {
        return UsageQuery.usage(tx, groups, dayStart, since);
    }

    @Override
    public Optional<TurnRecord> latestStartedBefore(SessionKey key, long turnId) {
        Objects.requireNonNull(key, "key");
        return tx.read("turn before " + turnId + " of session " + key, c -> {
            try {
                return c.one(LATEST_STARTED_BEFORE, JdbcTurnStore::decode, key.value(), turnId);
            } catch (RowDecodeException e) {
                throw StoreException.corruptRow("turn before " + turnId + " of session " + key, e.problem(), e);
            }
        });
    }

    @Override
    public Optional<TurnRecord> find(long turnId) {
        return tx.read("turn " + turnId, c -> find(c, turnId));
    }

    @Override
    public Optional<TurnRecord> resumeAfter(SessionKey key, long turnId) {
        Objects.requireNonNull(key, "key");
        return tx.read("resume of turn " + turnId, c -> {
            try {
                return c.one(RESUME_AFTER, JdbcTurnStore::decode, key.value(), turnId);
            } catch (RowDecodeException e) {
                throw StoreException.corruptRow("the resume of turn " + turnId, e.problem(), e);
            }
        });
    }

    @Override
    public Optional<TurnRecord> findByMessage(String platform, String messageId) {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(messageId, "messageId");
        return tx.read("message " + messageId + " of " + platform, c -> {
            try {
                return c.one(FIND_BY_MESSAGE, JdbcTurnStore::decode, platform, messageId);
            } catch (RowDecodeException e) {
                throw StoreException.corruptRow("the turn of message " + messageId + " of " + platform, e.problem(), e);
            }
        });
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
        // finished turns are not in turns_by_state: listing them reads the table (tests and tools; nothing per message)
        String sql = state.terminal() ? IN_FINISHED_STATE : IN_STATE;
        return tx.read(state + " turns", c -> c.listReadable(sql, JdbcTurnStore::decode, JdbcTurnStore::subject, state.name(), limit));
    }

    @Override
    public List<RunningTurn> running() {
        return tx.read("running turns", c -> {
            List<RunningTurn> found = new ArrayList<>();
            for (Running r : c.listReadable(RUNNING, JdbcTurnStore::running, JdbcTurnStore::subject)) {
                Optional<Optional<Instant>> last = r.sessionId() == null ? Optional.empty() : TranscriptTables.lastActivity(c, r.sessionId());
                found.add(new RunningTurn(r.id(), r.key(), r.sessionId(), r.startedAt(), last.isPresent(), last.flatMap(x -> x).orElse(null),
                        r.ownerNode()));
            }
            return found;
        });
    }

    private record Running(long id, SessionKey key, String sessionId, Instant startedAt, String ownerNode) {
    }

    private static Running running(ResultSet rs) throws SQLException {
        String key = rs.getString("session_key");
        Instant started = Micros.column(rs, "started_at");
        return new Running(rs.getLong("id"), RowDecodeException.decoding("session_key", key, () -> new SessionKey(key)),
                rs.getString("session_id"), started != null ? started : Micros.toInstant(rs.getLong("updated_at")), rs.getString("owner_node"));
    }

    @Override
    public CutOff.Result interrupt(List<CutOff> cutOffs) {
        return cutOff(cutOffs, null);
    }

    @Override
    public CutOff.Result interrupt(List<CutOff> cutOffs, String node) {
        return cutOff(cutOffs, node);
    }

    private CutOff.Result cutOff(List<CutOff> cutOffs, String node) {
        List<CutOff> ordered = cutOffs.stream().sorted(Comparator.comparingLong(x -> x.turn().id())).toList();
        return tx.write("cut-off of " + ordered.size() + " running turn(s)", c -> {
            List<RunningTurn> interrupted = new ArrayList<>();
            List<SessionKey> marked = new ArrayList<>();
            long now = nowMicros();
            for (CutOff cut : ordered) {
                RunningTurn t = cut.turn();
                if (move(c, t.id(), TurnTransition.INTERRUPT, new TurnChange(null, null, "interrupted", null, null, null, null, node)) == 0) {
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

    /**
     * The waiting turns a node may run (parameters: node, received-before, node, the bound platforms, limit): see
     * {@link TurnStore#claimWaiting}; a live receiver's (or claimer's) turn at once when the node holds its lane's lease (the
     * receiver could not start it), else once it has waited since {@code updated_at} (received or claimed) for the grace. Through turns_by_state; the lane's and the receiver's liveness by primary keys.
     */
    public static String waitingSql(int boundPlatforms) {
        String notBound = boundPlatforms == 0 ? "" : " AND t.platform NOT IN (" + "?, ".repeat(boundPlatforms - 1) + "?)";
        return "SELECT " + COLUMNS + """
                 FROM turns t WHERE t.state = 'RECEIVED' AND %s
                  AND NOT EXISTS (SELECT 1 FROM sessions s JOIN nodes n ON n.node_id = s.owner_node
                                  WHERE s.session_key = t.session_key AND s.owner_node <> ? AND (n.state = 'running'
                                    OR n.state = 'draining' AND EXISTS (SELECT 1 FROM turns b WHERE b.session_key = s.session_key
                                        AND b.owner_node = n.node_id AND b.state IN ('RUNNING', 'AWAITING_DELIVERY'))))
                  AND (t.owner_node IS NULL
                       OR NOT EXISTS (SELECT 1 FROM nodes r WHERE r.node_id = t.owner_node AND r.state <> 'gone')
                       OR (t.updated_at < ? OR EXISTS (SELECT 1 FROM sessions h WHERE h.session_key = t.session_key
                                                       AND h.owner_node = ?))%s)
                ORDER BY t.id LIMIT ?""".formatted(unfinished("t.state"), notBound);
    }

    /** {@link #UNFINISHED} on {@code column} (the turns' state column, qualified as the query names the table). */
    private static String unfinished(String column) {
        return column + " IN ('RECEIVED', 'RUNNING', 'AWAITING_DELIVERY')";
    }

    @Override
    public List<TurnRecord> claimWaiting(String node, java.util.Set<String> boundPlatforms, Instant receivedBefore, int limit) {
        Objects.requireNonNull(node, "node");
        List<Object> args = new ArrayList<>();
        args.add(node);
        args.add(Micros.of(receivedBefore));
        args.add(node);
        args.addAll(boundPlatforms.stream().sorted().toList());
        args.add(limit);
        String sql = waitingSql(boundPlatforms.size());
        List<TurnRecord> seen = tx.read("waiting turns", c -> c.listReadable(sql, JdbcTurnStore::decode, JdbcTurnStore::subject,
                args.toArray()));
        if (seen.stream().allMatch(t -> node.equals(t.ownerNode()))) {
            return seen; // nothing to claim: no write
        }
        return tx.write("claim of waiting turns", c -> {
            List<TurnRecord> claimed = new ArrayList<>();
            for (TurnRecord t : c.listReadable(sql + claimRows, JdbcTurnStore::decode, JdbcTurnStore::subject, args.toArray())) {
                if (node.equals(t.ownerNode())) {
                    claimed.add(t);
                } else if (c.update("UPDATE turns SET owner_node = ?, updated_at = ? WHERE id = ? AND state = 'RECEIVED'", node, nowMicros(),
                        t.id()) == 1) {
                    find(c, t.id()).ifPresent(claimed::add);
                }
            }
            return claimed;
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
                rs.getLong("output_tokens"),
                rs.getString("owner_node"),
                Json.attachmentsOrNone(rs.getString("attachments"), "turn " + rs.getLong("id")),
                Json.files(rs.getString("reply_files"), "turn " + rs.getLong("id")));
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
