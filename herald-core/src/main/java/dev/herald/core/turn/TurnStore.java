package dev.herald.core.turn;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import java.util.List;
import java.util.Optional;

/**
 * Durable turns: the inbound queue, the in-flight record, and the outbox of final replies. These are the
 * store's primitives; the one writer of turn state is {@link Turns}, which alone calls the methods that move
 * a turn (an architecture test holds this).
 *
 * <p>Every state change is {@link #transition}: one conditional update built from a row of
 * {@link TurnTransition}'s table (compare-and-set on the state column); false means the turn was not in the
 * row's {@code from} state and nothing changed. At most one turn per session key is RUNNING at a time: a
 * START is refused while another turn of the lane runs.
 */
public interface TurnStore {

    /**
     * Stores an inbound event as a turn in state RECEIVED. When the event has a platform message id
     * that was stored before for the same platform, nothing is stored and the result is empty (durable
     * dedupe). The event is durable when this returns.
     */
    Optional<TurnRecord> receive(SessionKey key, MessageEvent event);

    /** {@link #receive(SessionKey, MessageEvent)}, recording {@code node} (when not null) as the node that received it. */
    Optional<TurnRecord> receive(SessionKey key, MessageEvent event, String node);

    /**
     * Moves the turn along {@code transition} (from its {@code from} state to its {@code to} state) and writes
     * {@code change}'s fields, in one transaction. A START sets the transcript session and, in the same
     * transaction, appends the user's row to it; it is refused while another turn of the same lane is RUNNING.
     * A REFUSE counts one more delivery attempt with its error.
     *
     * @return true when the turn was in the {@code from} state and moved; false when nothing changed
     */
    boolean transition(long turnId, TurnTransition transition, TurnChange change);

    /**
     * Records, before the platform is called, that part {@code part} (1-based) of the reply is about to be sent: if
     * no answer is recorded after it, the part is in doubt. False when the turn is not AWAITING_DELIVERY or that part
     * was confirmed already.
     */
    boolean recordSendIntent(long turnId, int part);

    /**
     * Records the files a RUNNING turn's reply sends after its text (written before the reply itself is recorded, so
     * that the reply's record carries them); false when the turn is not running.
     */
    boolean recordReplyFiles(long turnId, List<dev.herald.core.platform.OutboundFile> files);

    /**
     * {@link #recordSendIntent(long, int)} by {@code node} (fencing, when not null): the turn must be the node's, or its
     * owner gone, and becomes the node's; false otherwise, and the node must not send.
     */
    boolean recordSendIntent(long turnId, int part, String node);

    /**
     * Records the platform's answer to part {@code part} (1-based) of a split reply that is not its last: the part is
     * confirmed (a later attempt starts after it) and its message id kept. Never moves backwards; false when the
     * turn is not AWAITING_DELIVERY or the part was confirmed already. The last part's answer is the DELIVER move.
     */
    boolean recordPartSent(long turnId, int part, String messageId);

    /** {@link #recordPartSent(long, int, String)} by {@code node} (fencing, when not null): only while the turn is the node's. */
    boolean recordPartSent(long turnId, int part, String messageId, String node);

    /**
     * Records a failed delivery attempt of an AWAITING_DELIVERY turn that will be tried again: counts it, keeps
     * {@code error} (the platform's words, no secrets) and the time. A refusal for good is the REFUSE transition.
     */
    boolean recordDeliveryFailure(long turnId, String error);

    /** Adds model token usage to the turn (each model call of a turn reports its own). */
    void addUsage(long turnId, long inputTokens, long outputTokens);

    /** The lane's newest turn that has started (RUNNING or later: not still waiting, not cancelled), if any. */
    Optional<TurnRecord> latestStarted(SessionKey key);

    /**
     * The lane's turns that started at or after {@code since} (RUNNING or later, as {@link #latestStarted}), newest first, at
     * most {@code limit}: what {@code /usage} adds up for a day.
     */
    List<TurnRecord> startedSince(SessionKey key, java.time.Instant since, int limit);

    /**
     * The turns and model tokens of each group of senders ({@code groups}: a group's name, e.g. an account, to the senders
     * who are that group): the turns that started (RUNNING or later) whose message came in at or after {@code since}, and
     * of those the ones from {@code dayStart} on. A group without turns maps to {@link SenderUsage#NONE}. The database adds
     * them up, reaching each sender's turns through an index (one statement per {@value #USAGE_SENDERS} senders).
     */
    java.util.Map<String, SenderUsage> usage(java.util.Map<String, List<SenderUsage.Sender>> groups, java.time.Instant dayStart,
            java.time.Instant since);

    /** Senders counted by one statement of {@link #usage}. */
    int USAGE_SENDERS = 200;

    /** The lane's newest turn older than turn {@code turnId} that has started (what a resume turn continues), if any. */
    Optional<TurnRecord> latestStartedBefore(SessionKey key, long turnId);

    Optional<TurnRecord> find(long turnId);

    /** The lane's first automatic resume turn after turn {@code turnId} (what continues it when it was cut off), if any. */
    Optional<TurnRecord> resumeAfter(SessionKey key, long turnId);

    /** The turn of the message {@code messageId} that {@code platform} handed in (its durable dedupe key), if one is stored. */
    Optional<TurnRecord> findByMessage(String platform, String messageId);

    /** Turns in {@code state}, oldest first; at most {@code limit}. Indexed for the unfinished states only. */
    List<TurnRecord> inState(TurnState state, int limit);

    /** Every RUNNING turn with its last activity, oldest first (rows that cannot be read are logged and skipped). */
    List<RunningTurn> running();

    /**
     * Ends the given RUNNING turns as INTERRUPTED in one transaction; for each turn that was still RUNNING, its
     * lane gets one more on its stuck-loop counter and, when the cut-off says so, the resume mark (unless the
     * lane is resume-pending or suspended already). A turn no longer RUNNING is left alone.
     *
     * @return which turns this call interrupted and which lanes it marked
     */
    CutOff.Result interrupt(List<CutOff> cutOffs);

    /** {@link #interrupt(List)} by {@code node} (fencing, when not null): only turns that are the node's, or whose owner is gone. */
    CutOff.Result interrupt(List<CutOff> cutOffs, String node);

    /**
     * The waiting (RECEIVED) turns node {@code node} may run now, oldest first, at most {@code limit}: turns of lanes whose
     * lease no other node keeps (a running node, or a draining one while it runs or delivers a turn of the lane), received
     * by a node that is gone (or not recorded), or by a live node (or claimed by one) before {@code receivedBefore} or in
     * a lane whose lease this node holds, on a platform not in {@code boundPlatforms} (whose turns must run where their
     * request is held). Those received by another node become this node's, in one transaction; on a database with
     * several writers a row another node is claiming is skipped, not waited for.
     */
    List<TurnRecord> claimWaiting(String node, java.util.Set<String> boundPlatforms, java.time.Instant receivedBefore, int limit);
}
