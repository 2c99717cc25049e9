package dev.herald.core.turn;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The one writer of turn state.
 *
 * <p>Design: every change of a turn's state goes through {@link #move}, which looks the move up in
 * {@link TurnTransition}'s table (a move that is not a row there is a bug and throws) and performs it as one
 * compare-and-set in the store. A false result means the turn was no longer in the row's {@code from} state:
 * somebody else (a stop, the start-up sweep, the watchdog) moved it first, and the caller must act on what
 * the store now says rather than on what it expected. Nothing else calls the store's state-changing
 * methods (an architecture test holds this), so the table, the store's conditional SQL and the code that
 * drives turns cannot drift apart.
 *
 * <p>Each successful move is reported to the {@link Observer} (metrics, tests). Every move is made by this gateway's
 * node (when it has one) and the store checks, in the same compare-and-set, the lease that node holds (fencing): a
 * START needs the session's lease, any other move needs the turn to be the node's and the node not to be gone, or the
 * turn's owner to be gone. A node that was judged dead therefore moves nothing, and sends nothing.
 */
public final class Turns {

    /** Hears every move that happened. */
    @FunctionalInterface
    public interface Observer {
        void moved(long turnId, TurnTransition transition);

        Observer NONE = (id, t) -> {
        };
    }

    private final TurnStore store;
    private final Observer observer;
    private final String node;

    /**
     * @param node the node whose moves these are (fencing), or null for none (tests, tools on a stopped store)
     */
    public Turns(TurnStore store, Observer observer, String node) {
        this.store = Objects.requireNonNull(store, "store");
        this.observer = Objects.requireNonNull(observer, "observer");
        this.node = node;
    }

    public Turns(TurnStore store, Observer observer) {
        this(store, observer, null);
    }

    public Turns(TurnStore store) {
        this(store, Observer.NONE);
    }

    /** The node whose moves these are, or null. */
    public String node() {
        return node;
    }

    /** Stores an inbound event as a RECEIVED turn received by this node; empty when it was stored before (durable dedupe). */
    public Optional<TurnRecord> receive(SessionKey key, MessageEvent event) {
        return store.receive(key, event, node);
    }

    /**
     * RECEIVED to RUNNING in transcript session {@code sessionId}, appending {@code userRow} (when not null) in
     * the same transaction; empty when the turn is not RECEIVED or another turn of its lane runs.
     */
    public Optional<TurnRecord> start(long turnId, String sessionId, TranscriptRow userRow) {
        return start(turnId, sessionId, userRow, null);
    }

    /**
     * As {@link #start(long, String, TranscriptRow)}, bumping the lane's row for the message from {@code touchedBy} (may be
     * null: no bump) in the same transaction: the lane was read by {@code SessionStore.forTurn}, which leaves that here.
     */
    public Optional<TurnRecord> start(long turnId, String sessionId, TranscriptRow userRow, SessionSource touchedBy) {
        Objects.requireNonNull(sessionId, "sessionId");
        if (!move(turnId, TurnState.RECEIVED, TurnState.RUNNING, TurnChange.start(sessionId, userRow, touchedBy))) {
            return Optional.empty();
        }
        return store.find(turnId);
    }

    /** RECEIVED to CANCELLED: the turn will never run. */
    public boolean cancel(long turnId, String why) {
        return move(turnId, TurnState.RECEIVED, TurnState.CANCELLED, TurnChange.outcome(why));
    }

    /**
     * RECEIVED to CANCELLED for a message whose sender is told to send it again (an API request answered 503 "retry"): its
     * platform message id is given back in the same write, so the retry, which carries the same request id, is stored as a
     * new turn instead of being dropped as delivered before (it would be lost).
     */
    public boolean withdraw(long turnId, String why) {
        return move(turnId, TurnState.RECEIVED, TurnState.CANCELLED, TurnChange.withdrawal(why));
    }

    /** RUNNING to AWAITING_DELIVERY, recording the outcome kind and the reply to deliver. */
    public boolean recordReply(long turnId, String outcome, String reply) {
        return move(turnId, TurnState.RUNNING, TurnState.AWAITING_DELIVERY, TurnChange.reply(outcome, reply, false));
    }

    /**
     * As {@link #recordReply}, with the send intent of the reply's first part ({@link #recordSendIntent} of part 1) in the
     * same write, for a caller that sends that part at once: a turn waits on one write less. A crash before the part is
     * sent leaves it "in doubt", and it is sent again with the same idempotency key, as after any send intent.
     */
    public boolean recordReplyAndSend(long turnId, String outcome, String reply) {
        return move(turnId, TurnState.RUNNING, TurnState.AWAITING_DELIVERY, TurnChange.reply(outcome, reply, true));
    }

    /** RUNNING to DELIVERED: the turn ended with nothing to send. */
    public boolean complete(long turnId, String outcome) {
        return move(turnId, TurnState.RUNNING, TurnState.DELIVERED, TurnChange.outcome(outcome));
    }

    /** RUNNING to INTERRUPTED: cut off while this process runs (a stop, /stop, the interrupt policy). */
    public boolean interrupt(long turnId, String outcome) {
        return move(turnId, TurnState.RUNNING, TurnState.INTERRUPTED, TurnChange.outcome(outcome));
    }

    /** RUNNING to FAILED, recording what went wrong (for the operator; never shown to the chat as it is). */
    public boolean fail(long turnId, String outcome, String error) {
        return move(turnId, TurnState.RUNNING, TurnState.FAILED, TurnChange.failure(outcome, error));
    }

    /** AWAITING_DELIVERY to DELIVERED, recording the platform's id of the sent reply (may be null). */
    public boolean delivered(long turnId, String replyMessageId) {
        return move(turnId, TurnState.AWAITING_DELIVERY, TurnState.DELIVERED, TurnChange.sent(replyMessageId));
    }

    /** AWAITING_DELIVERY to UNDELIVERABLE: the platform refused the reply for good; {@code error} says why. */
    public boolean refused(long turnId, String error) {
        return move(turnId, TurnState.AWAITING_DELIVERY, TurnState.UNDELIVERABLE, TurnChange.refused(error));
    }

    /**
     * Ends RUNNING turns that no live lane owns as INTERRUPTED, counting and marking their lanes as each
     * cut-off says (the continuity rules decide; this only writes), all in one transaction.
     */
    public CutOff.Result cutOff(List<CutOff> cutOffs) {
        if (cutOffs.isEmpty()) {
            return new CutOff.Result(List.of(), List.of());
        }
        CutOff.Result result = store.interrupt(cutOffs, node);
        result.interrupted().forEach(t -> observer.moved(t.id(), TurnTransition.INTERRUPT));
        return result;
    }

    /**
     * The one transition method: moves the turn from {@code from} to {@code to} along the table's row, as one
     * compare-and-set in the store; false when the turn was not in {@code from}.
     *
     * @throws IllegalStateException when the table has no such row (a bug in the caller)
     */
    private boolean move(long turnId, TurnState from, TurnState to, TurnChange change) {
        TurnTransition t = TurnTransition.between(from, to).orElseThrow(() -> new IllegalStateException(
                "turn - no transition from " + from + " to " + to + " in the table; turn " + turnId + " was not moved"));
        boolean moved = store.transition(turnId, t, change.by(node));
        if (moved) {
            observer.moved(turnId, t);
        }
        return moved;
    }

    /**
     * The waiting turns this node may run now (see {@link TurnStore#claimWaiting}); those another node received become
     * this node's. Nothing without a node.
     */
    public List<TurnRecord> claimWaiting(java.util.Set<String> boundPlatforms, java.time.Instant receivedBefore, int limit) {
        return node == null ? List.of() : store.claimWaiting(node, boundPlatforms, receivedBefore, limit);
    }

    // ---- reads ---------------------------------------------------------------------------------

    public Optional<TurnRecord> find(long turnId) {
        return store.find(turnId);
    }

    /** The lane's first automatic resume turn after turn {@code turnId}, if any. */
    public Optional<TurnRecord> resumeAfter(SessionKey key, long turnId) {
        return store.resumeAfter(key, turnId);
    }

    /** The turn of a message a platform handed in before (its platform message id), if one is stored. */
    public Optional<TurnRecord> findByMessage(String platform, String messageId) {
        return store.findByMessage(platform, messageId);
    }

    public Optional<TurnRecord> latestStarted(SessionKey key) {
        return store.latestStarted(key);
    }

    /** The lane's turns started at or after {@code since}, newest first, at most {@code limit}. */
    public List<TurnRecord> startedSince(SessionKey key, java.time.Instant since, int limit) {
        return store.startedSince(key, since, limit);
    }

    public Optional<TurnRecord> latestStartedBefore(SessionKey key, long turnId) {
        return store.latestStartedBefore(key, turnId);
    }

    public List<TurnRecord> inState(TurnState state, int limit) {
        return store.inState(state, limit);
    }

    public List<RunningTurn> running() {
        return store.running();
    }

    // ---- delivery progress and usage (not state) --------------------------------------------------

    /** Records the files of a running turn's reply, before the reply ({@link #recordReplyAndSend}). */
    public boolean recordReplyFiles(long turnId, List<dev.herald.core.platform.OutboundFile> files) {
        return files.isEmpty() || store.recordReplyFiles(turnId, files);
    }

    /** Records that a part is about to be sent; false when the turn is not (or no longer) this node's to send. */
    public boolean recordSendIntent(long turnId, int part) {
        return store.recordSendIntent(turnId, part, node);
    }

    public boolean recordPartSent(long turnId, int part, String messageId) {
        return store.recordPartSent(turnId, part, messageId, node);
    }

    public boolean recordDeliveryFailure(long turnId, String error) {
        return store.recordDeliveryFailure(turnId, error);
    }

    public void addUsage(long turnId, long inputTokens, long outputTokens) {
        store.addUsage(turnId, inputTokens, outputTokens);
    }
}
