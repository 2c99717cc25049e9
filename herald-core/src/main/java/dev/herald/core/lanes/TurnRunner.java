package dev.herald.core.lanes;

import dev.herald.core.CrashPoints;
import dev.herald.core.UserErrors;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnOptions;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.cluster.Membership;
import dev.herald.core.continuity.Freshness;
import dev.herald.core.continuity.NoteInjector;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.continuity.ResumeMarks;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.Outbox;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.outbox.Typing;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.retry.Backoff;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Compactions;
import dev.herald.core.session.Storage;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.AgentHistory;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.RunningTurn;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one turn whose lane the caller owns, from the stored turn record to the delivered reply.
 *
 * <p>Order of effects (each durable before the next is visible):
 * <ol>
 *   <li>re-check authorization (replayed and resumed turns pass the same rule as fresh ones);</li>
 *   <li>resolve the session (suspension, compression tip), load the raw transcript, close tool calls
 *       left without a result by a crash, and inject at most one continuity note;</li>
 *   <li>start the turn: RECEIVED to RUNNING together with the user's row, one transaction;</li>
 *   <li>run the agent; every message it produces is appended as it happens (an answer without tool calls commits
 *       with the reply record that follows it, in one transaction on SQLite);</li>
 *   <li>record the final reply on the turn, clear the resume mark only after a success, then send
 *       and mark sent (the outbox).</li>
 * </ol>
 * Never throws: a failure before the start cancels the turn, a failure after it ends the turn as FAILED (the
 * error recorded, the chat told); either way the lane goes on with the session's next message.
 *
 * <p>A store outage (a full disk, an unreachable database: {@link StoreException#outage()}) is not the turn's failure.
 * The store waits it out for a bounded time inside each call, so a turn usually just pauses. When a call still fails for
 * it, a turn that had not started waits in its lane until the store writes again and is then prepared again (the
 * session's later messages stay behind it, in order); a turn that had started is cut off once the store is back, as an
 * interrupted turn (INTERRUPTED, its session resume-pending) and resumed at once in its lane. Neither is FAILED and
 * neither chat is told anything but its answer. Texts a chat does get for a failure follow {@link UserErrors}.
 */
public final class TurnRunner {
    private static final Logger log = LoggerFactory.getLogger(TurnRunner.class);
    public static final String APOLOGY = UserErrors.APOLOGY;
    /**
     * Why an automatic resume turn was cancelled when it came to run: the session was no longer resume-pending (its next
     * message, which carried the interruption note, ran first and continued the cut-off turn).
     */
    public static final String NOTHING_TO_RESUME = "nothing left to resume";
    static final String DANGLING_TOOL_RESULT = "[interrupted] The gateway stopped before this tool call returned a "
            + "result. It was not re-run; do not assume it succeeded.";

    private final Storage storage;
    private final Turns turns;
    private final OrphanedTurns orphans;
    private final ResumeMarks marks;
    private final Agent agent;
    private final Authorizer authorizer;
    private final PlatformRegistry platforms;
    private final Outbox outbox;
    private final SessionLanes lanes;
    private final Policy policy;
    private final Clock clock;
    private final GatewayMetrics metrics;
    private final PendingApprovals approvals;
    private final Compactions compactions;
    private final Membership membership;
    private final java.util.function.BooleanSupplier accepting;
    private final TurnOptionsLookup options;
    private final Steering steering;
    private final TurnEvents.Parts events;
    /** How long a turn held open on this node waits for the node that holds its session's lease, and how often it looks. */
    static final java.time.Duration LEASE_WAIT = java.time.Duration.ofMinutes(10);
    static final java.time.Duration LEASE_POLL = java.time.Duration.ofMillis(200);

    /** Where a turn's records live: the store, its turns, what a crash left, the sessions' resume marks. */
    public record Records(Storage storage, Turns turns, OrphanedTurns orphans, ResumeMarks marks) {
    }

    /** How a turn's answer and questions go out: the platforms, the outbox, open tool approvals, options stored for a request. */
    public record Delivery(PlatformRegistry platforms, Outbox outbox, PendingApprovals approvals, TurnOptionsLookup options) {
    }

    /**
     * What a turn may do: how long an interruption stays worth resuming, and whether dangerous tools run where no user can
     * be asked.
     */
    public record Policy(Freshness freshness, boolean allowDangerousWithoutUser,
            java.util.function.Predicate<dev.herald.core.session.SessionSource> mayApprove) {
        public Policy {
            mayApprove = mayApprove == null ? s -> true : mayApprove;
        }
    }

    /** The node that runs it: its membership (the sessions' leases) and whether the gateway still accepts work. */
    public record Node(Membership membership, java.util.function.BooleanSupplier accepting) {
    }

    public TurnRunner(Records records, Delivery delivery, Agent agent, Authorizer authorizer, SessionLanes lanes, Policy policy,
            Node node, Clock clock, GatewayMetrics metrics) {
        this.storage = records.storage();
        this.turns = records.turns();
        this.orphans = records.orphans();
        this.marks = records.marks();
        this.agent = agent;
        this.authorizer = authorizer;
        this.platforms = delivery.platforms();
        this.outbox = delivery.outbox();
        this.lanes = lanes;
        this.policy = policy;
        this.clock = clock;
        this.metrics = metrics;
        this.approvals = delivery.approvals();
        this.compactions = new Compactions(storage.transcripts(), clock);
        this.membership = node.membership();
        this.accepting = node.accepting();
        this.options = delivery.options();
        this.steering = new Steering(lanes, storage.transcripts(), turns, clock);
        this.events = new TurnEvents.Parts(storage, turns, membership, steering, compactions, approvals, policy, metrics, clock);
    }

    void run(TurnRecord turn) {
        // log lines of this turn carry its lane and id (logging.format: json writes them as session_key and turn_id)
        org.slf4j.MDC.put("session_key", turn.sessionKey().value());
        org.slf4j.MDC.put("turn_id", Long.toString(turn.id()));
        try {
            Backoff pause = storeWait();
            while (true) {
                try {
                    if (attempt(turn, false) == Attempt.LOST) {
                        waitForTheLane(turn);
                    }
                    return;
                } catch (RuntimeException e) {
                    if (!StoreException.isOutage(e)) {
                        notStarted(turn, e);
                        return;
                    }
                    log.debug("gateway - turn {} of {} waits for the store before it starts: {}", turn.id(), turn.sessionKey(), e.getMessage());
                    if (!awaitStore(pause)) {
                        log.info("gateway - turn {} of {} did not start: the store could not write until the gateway stopped; it stays "
                                + "stored and runs after the next start", turn.id(), turn.sessionKey());
                        return;
                    }
                }
            }
        } finally {
            org.slf4j.MDC.remove("session_key");
            org.slf4j.MDC.remove("turn_id");
        }
    }

    /** How one try to start a turn ended. */
    private enum Attempt {
        /** The turn ran (or was cancelled, or ended otherwise): nothing left to do for it here. */
        DONE,
        /** The store refused its start: another node holds the session's lease, or another turn of the session runs. */
        LOST
    }

    /** Prepares and starts the turn; once it runs, any failure ends it as FAILED ({@link #failedAfterStart}). */
    private Attempt attempt(TurnRecord turn, boolean healed) {
        SessionKey key = turn.sessionKey();
        Optional<PlatformAdapter> adapter = platforms.adapter(turn.source().platform());
        if (adapter.isEmpty()) {
            cancel(turn, "platform " + turn.source().platform() + " is not running");
            return Attempt.DONE;
        }
        if (!authorizer.isAuthorized(turn.source())) {
            log.warn("gateway - turn {} of {} not started: its sender is not authorized under the current access rules", turn.id(), key);
            turns.cancel(turn.id(), "not authorized");
            return Attempt.DONE;
        }
        SessionEntry entry = storage.sessions().forTurn(key, turn.source()); // the start below bumps the lane's row
        if (turn.origin() == MessageEvent.Origin.RESUME && !entry.resumePending()) {
            cancel(turn, NOTHING_TO_RESUME);
            return Attempt.DONE;
        }
        List<TranscriptRow> transcript = closeDanglingToolCalls(entry.sessionId(), storage.transcripts().load(entry.sessionId()));
        Capabilities caps = adapter.get().capabilities();
        NoteInjector.Prepared prepared = NoteInjector.prepare(entry, transcript, turn.text(), caps.interactive(), policy.freshness(),
                clock.instant(), options.continuedTask(turn)); // a cut-off scheduled run resumes as its task, not as a chat
        if (prepared.modelMessage().isBlank() && turn.attachments().isEmpty()) {
            cancel(turn, "empty message");
            return Attempt.DONE;
        }
        Optional<TurnRecord> started = turns.start(turn.id(), entry.sessionId(),
                TranscriptRow.user(prepared.persistedMessage(), turn.attachments(), clock.instant()), turn.source());
        if (started.isEmpty()) {
            if (!healed && endOrphanOfLane(turn)) {
                return attempt(turn, true); // the lane's orphan is gone (and may have marked it): prepare again
            }
            return Attempt.LOST;
        }
        try {
            CrashPoints.reach(CrashPoints.BEFORE_AGENT);
            execute(started.get(), entry, transcript, prepared, adapter.get());
        } catch (RuntimeException e) {
            failedAfterStart(started.get(), e);
        }
        return Attempt.DONE;
    }

    /**
     * The store refused to start the turn, which this node's lane holds. It is never left waiting with nothing to start it:
     * <ul>
     *   <li>a turn another node may run (its reply does not go back over a request held here) is left for the node that
     *       holds the session's lease, which runs it at once ({@link Pickup});</li>
     *   <li>any other (its request is held open here, or this node holds the lease itself while another node's turn of
     *       the session ends) waits until the session is free and starts then: it takes the lease once its holder neither
     *       runs nor delivers a turn of the session, and tries the start again, until it starts, ends (a /stop), this node
     *       stops, or {@link #LEASE_WAIT} passes.</li>
     * </ul>
     */
    private void waitForTheLane(TurnRecord turn) {
        SessionKey key = turn.sessionKey();
        long deadline = System.nanoTime() + LEASE_WAIT.toNanos();
        String holder = null;
        while (true) {
            Optional<TurnRecord> stored = turns.find(turn.id());
            if (stored.isEmpty() || stored.get().state() != TurnState.RECEIVED) {
                log.info("gateway - turn {} of {} is no longer waiting ({}); nothing to start here", turn.id(), key,
                        stored.map(t -> t.state().name().toLowerCase(java.util.Locale.ROOT)).orElse("gone"));
                return;
            }
            Optional<PlatformAdapter> adapter = platforms.adapter(turn.source().platform());
            if (adapter.isEmpty()) {
                cancel(turn, "platform " + turn.source().platform() + " is not running");
                return;
            }
            Optional<String> elsewhere = storage.sessions().leaseHolder(key).filter(h -> !h.equals(membership.id()));
            if (elsewhere.isPresent() && !adapter.get().capabilities().delivery().turnsRunWhereReceived()) {
                log.info("gateway - turn {} of {} is left for node {}, which holds the session's lease", turn.id(), key, elsewhere.get());
                return;
            }
            holder = elsewhere.orElse(holder);
            if (!accepting.getAsBoolean() || System.nanoTime() - deadline >= 0) {
                gaveUpWaiting(turn, adapter.get(), holder == null ? "another node" : "node " + holder);
                return;
            }
            if (elsewhere.isEmpty() || storage.sessions().takeLease(key, membership.id(), true)) {
                if (elsewhere.isPresent()) {
                    log.info("gateway - turn {} of {}: node {} was done with the session; its lease is this node's now", turn.id(), key,
                            elsewhere.get());
                }
                if (attempt(turn, false) == Attempt.DONE) {
                    return;
                }
            }
            try {
                Thread.sleep(LEASE_POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * A turn that waited for the session stops waiting here: this node stops, or the session stayed busy for
     * {@link #LEASE_WAIT}.
     */
    private void gaveUpWaiting(TurnRecord turn, PlatformAdapter adapter, String holder) {
        if (!accepting.getAsBoolean() && !adapter.capabilities().interactive()) {
            // this node stops, and its request is answered "retry" when the adapter closes; with nobody in a chat to read a
            // reply later, the turn must not run on another node (its reply would reach no one, and the client's retry
            // would run it a second time). An interactive platform's turn stays waiting: another node runs it and the
            // chat shows its reply.
            if (turns.withdraw(turn.id(), "this node stopped while the turn waited for " + holder)) {
                log.info("gateway - turn {} of {} cancelled: this node stopped while it waited for {} to be done with the session; "
                        + "its request is answered 503 (retry)", turn.id(), turn.sessionKey(), holder);
            }
            return;
        }
        if (!accepting.getAsBoolean()) {
            log.info("gateway - turn {} of {} stays waiting: this node stops; another node runs it", turn.id(), turn.sessionKey());
            return;
        }
        if (turns.cancel(turn.id(), "the session stayed busy on " + holder)) {
            log.warn("gateway - turn {} of {} cancelled: {} kept the session busy for {} s", turn.id(), turn.sessionKey(), holder,
                    LEASE_WAIT.toSeconds());
            apologize(turn);
        }
    }

    /**
     * This node owns the turn's lane, so a RUNNING turn of the lane in the store that is not this one, and that is this
     * node's (or no live node's), has no owner (its failure could not be recorded): it ends as the continuity rules say,
     * and this turn may start. A turn another live node runs is that node's.
     */
    private boolean endOrphanOfLane(TurnRecord turn) {
        List<RunningTurn> lane = turns.running().stream()
                .filter(r -> r.key().equals(turn.sessionKey()) && r.id() != turn.id())
                .toList();
        if (lane.isEmpty()) {
            return false;
        }
        java.util.Set<String> live = membership.live();
        List<RunningTurn> orphans = lane.stream()
                .filter(r -> r.ownerNode() == null || r.ownerNode().equals(membership.id()) || !live.contains(r.ownerNode()))
                .toList();
        return !orphans.isEmpty() && !this.orphans.end(orphans, "lane " + turn.sessionKey()).interrupted().isEmpty();
    }

    /**
     * A failure before the turn started (reading the session, the transcript): the turn is cancelled and the chat
     * told, so the user can send it again; if even that cannot be written, the turn stays stored and is replayed
     * at the next start.
     */
    private void notStarted(TurnRecord turn, RuntimeException e) {
        log.error("gateway - turn {} of {} failed before it started; it is cancelled and its chat is told", turn.id(),
                turn.sessionKey(), e);
        try {
            if (turns.cancel(turn.id(), "could not start: " + describe(e))) {
                apologize(turn);
            }
        } catch (RuntimeException again) {
            log.error("gateway - turn {} of {} could not be cancelled either ({}); it stays stored and runs after the next start",
                    turn.id(), turn.sessionKey(), again.toString());
        }
    }

    /**
     * Any failure after the turn started (a store hiccup, a bug) ends it as FAILED with the error recorded and a
     * short apology to the chat; the lane goes on with the session's next message. A turn that had already recorded
     * its reply keeps it (the outbox delivers it). When not even the failure can be written, the watchdog ends the
     * turn later, and the lane's next turn ends it at once when it needs the lane.
     */
    private void failedAfterStart(TurnRecord turn, RuntimeException e) {
        if (StoreException.isOutage(e)) {
            cutOffByOutage(turn, e);
            return;
        }
        log.error("gateway - turn {} of {} failed after it started; it ends as failed and its chat is told", turn.id(),
                turn.sessionKey(), e);
        try {
            if (turns.fail(turn.id(), "error", describe(e))) {
                apologize(turn);
            }
        } catch (RuntimeException again) {
            log.error("gateway - turn {} of {} could not be recorded as failed ({}); the watchdog ends it", turn.id(),
                    turn.sessionKey(), again.toString());
        }
    }

    /**
     * The store could not write for longer than a call waits: the turn cannot go on. Once the store writes again it ends
     * as an interrupted turn (the continuity rule marks its session resume-pending when fresh), and a resume turn is
     * queued in its lane, which this thread still runs. While the gateway stops first, the turn stays RUNNING in the store
     * and the next start recovers it.
     */
    private void cutOffByOutage(TurnRecord turn, RuntimeException e) {
        log.warn("gateway - turn {} of {} was cut off: the store could not write for longer than a call waits ({}); it is resumed "
                + "once the store is back", turn.id(), turn.sessionKey(), e.getMessage());
        if (!awaitStore(storeWait())) {
            return;
        }
        try {
            List<RunningTurn> mine = turns.running().stream().filter(r -> r.id() == turn.id()).toList();
            if (mine.isEmpty() || orphans.end(mine, "store outage").marked().isEmpty()) {
                return; // it recorded its reply (the outbox delivers it), or it is too old to resume
            }
            Optional<TurnRecord> resume = turns.receive(turn.sessionKey(),
                    MessageEvent.resume(turn.source(), clock.instant(), turn.answersMessageId()));
            resume.ifPresent(r -> lanes.submit(turn.sessionKey(), r)); // this lane is ours: it runs next
        } catch (RuntimeException again) {
            log.warn("gateway - turn {} of {} could not be ended after the store outage ({}); the watchdog ends it", turn.id(),
                    turn.sessionKey(), again.toString());
        }
    }

    /** The pauses between looks at the store while a turn waits for it. */
    private static Backoff storeWait() {
        return new Backoff(java.time.Duration.ofMillis(200), java.time.Duration.ofSeconds(2));
    }

    /** Waits (at least one pause) until the store can write again; false when the gateway stops first or the thread is interrupted. */
    private boolean awaitStore(Backoff pause) {
        do {
            try {
                Thread.sleep(pause.next());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        } while (accepting.getAsBoolean() && !storage.health().writable());
        return accepting.getAsBoolean();
    }

    private void apologize(TurnRecord turn) {
        try {
            outbox.send(turn.source().platform(), turn.source().target(), APOLOGY, MessageKind.ERROR, turn.platformMessageId(),
                    turn.eventId());
        } catch (RuntimeException e) {
            log.warn("gateway - could not tell {} that its turn {} failed: {}", turn.sessionKey(), turn.id(), e.toString());
        }
    }

    private static String describe(RuntimeException e) {
        String text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        return text.length() <= 500 ? text : text.substring(0, 500) + "...";
    }

    private void execute(TurnRecord turn, SessionEntry entry, List<TranscriptRow> transcript,
            NoteInjector.Prepared prepared, PlatformAdapter adapter) {
        TurnOptions turnOptions = options.of(turn); // from the store for a scheduled turn and its resume, else as its event asked
        Interrupt interrupt = new Interrupt();
        lanes.started(new ActiveTurn(turn.id(), turn.sessionKey(), turn.source(), turn.eventId(), interrupt, clock.instant()));
        Capabilities caps = adapter.capabilities();
        TurnRequest request = new TurnRequest(entry.sessionId(), turn.sessionKey().value(), AgentHistory.from(transcript),
                prepared.modelMessage(), caps.interactive(), turn.source().platform().id(), turnOptions, turn.attachments(),
                dev.herald.core.memory.Memories.ownerOf(turn.source()));
        long startNanos = System.nanoTime();
        metrics.turnStarted(turn, prepared.note());
        if (transcript.isEmpty()) {
            metrics.sessionStarted(turn);
        }
        // read before the turn writes: a read after the answer's deferred row would commit it early, one more waited write
        boolean footer = UsageFooter.on(storage.chatPreferences(), turn.sessionKey());
        TurnOutcome outcome;
        List<OutboundFile> files = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Typing typing = Typing.start(adapter, turn.source().target(), turn.eventId())) {
            outcome = agent.runTurn(request, new TurnEvents(events, turn, entry.sessionId(), adapter, interrupt, files), interrupt);
        } catch (RuntimeException e) {
            if (StoreException.isOutage(e)) {
                throw e; // not the turn's failure: it is cut off and resumed (failedAfterStart)
            }
            log.error("gateway - agent failed on turn {} of {}", turn.id(), turn.sessionKey(), e);
            outcome = new TurnOutcome.Errored(UserErrors.forUser(e), "gateway - the agent failed (" + e + ")");
        }
        if (outcome == null) {
            outcome = new TurnOutcome.Errored("Sorry, the agent ended without an answer. Try again.");
        }
        metrics.turnEnded(turn, outcome, System.nanoTime() - startNanos);
        finish(turn, outcome, files, footer);
    }

    private void finish(TurnRecord turn, TurnOutcome outcome, List<OutboundFile> files, boolean footer) {
        String reply = outcome.replyText();
        if (outcome instanceof TurnOutcome.Errored || outcome instanceof TurnOutcome.Failed) {
            reply = UserErrors.fromOperatorText(reply, APOLOGY); // the one rule, whoever wrote the text
        }
        boolean hasFiles = !files.isEmpty() && !(outcome instanceof TurnOutcome.Interrupted);
        boolean hasReply = (reply != null && !reply.isBlank() || hasFiles) && !(outcome instanceof TurnOutcome.Interrupted);
        CrashPoints.reach(CrashPoints.BEFORE_RECORD);
        if (hasReply) {
            reply = reply == null ? "" : reply;
            if (hasFiles && !turns.recordReplyFiles(turn.id(), files)) {
                log.info("gateway - turn {} of {} was closed while it ran (stop or crash recovery); its reply is not sent",
                        turn.id(), turn.sessionKey());
                return;
            }
            reply = footer ? UsageFooter.append(storage, agent, turns, turn, outcome, reply) : reply;
            if (!outbox.record(turn, outcome.kind(), reply)) {
                log.info("gateway - turn {} of {} was closed while it ran (stop or crash recovery); its reply is not sent",
                        turn.id(), turn.sessionKey());
                return;
            }
            marks.settle(turn.sessionKey(), outcome);
            turns.find(turn.id()).ifPresent(outbox::deliver);
            return;
        }
        boolean ended = switch (outcome) {
            case TurnOutcome.Interrupted i -> turns.interrupt(turn.id(), outcome.kind());
            case TurnOutcome.Final f -> turns.complete(turn.id(), outcome.kind());
            case TurnOutcome.Completed c -> turns.complete(turn.id(), outcome.kind());
            default -> turns.fail(turn.id(), outcome.kind(), errorOf(outcome));
        };
        if (ended) {
            marks.settle(turn.sessionKey(), outcome);
        }
    }

    /** What a turn that ended without a reply records as its error. */
    private static String errorOf(TurnOutcome outcome) {
        return switch (outcome) {
            case TurnOutcome.Errored e -> e.detail();
            case TurnOutcome.Failed f -> f.why();
            case TurnOutcome.NotCompleted n -> n.why();
            case TurnOutcome.Partial p -> p.why();
            default -> outcome.kind();
        };
    }

    private void cancel(TurnRecord turn, String why) {
        log.info("gateway - turn {} of {} cancelled: {}", turn.id(), turn.sessionKey(), why);
        turns.cancel(turn.id(), why);
    }

    /**
     * A crash can leave an assistant message whose tool calls have no results. The model must never
     * see that (it would re-run them or reject the history), so each missing result is recorded as an
     * interrupted tool result before the history is built. The closing rows carry the timestamp of the
     * assistant message they answer, so closing them does not make a stale interruption look fresh.
     */
    private List<TranscriptRow> closeDanglingToolCalls(String sessionId, List<TranscriptRow> transcript) {
        int lastCalls = -1;
        for (int i = transcript.size() - 1; i >= 0; i--) {
            TranscriptRow r = transcript.get(i);
            if (r.role() == dev.herald.core.transcript.Role.TOOL) {
                continue;
            }
            if (r.hasToolCalls()) {
                lastCalls = i;
            }
            break;
        }
        if (lastCalls < 0) {
            return transcript;
        }
        java.util.Set<String> answered = new java.util.HashSet<>();
        for (int i = lastCalls + 1; i < transcript.size(); i++) {
            answered.add(transcript.get(i).toolCallId());
        }
        List<TranscriptRow> out = new java.util.ArrayList<>(transcript);
        TranscriptRow calls = transcript.get(lastCalls);
        for (var call : calls.toolCalls()) {
            if (!answered.contains(call.id())) {
                out.add(storage.transcripts().append(sessionId,
                        TranscriptRow.tool(call.id(), call.name(), DANGLING_TOOL_RESULT, calls.timestamp())));
            }
        }
        return out;
    }
}
