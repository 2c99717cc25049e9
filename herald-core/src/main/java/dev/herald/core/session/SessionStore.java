package dev.herald.core.session;

import dev.herald.core.platform.Platform;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The durable index of conversation lanes: session key to {@link SessionEntry}.
 *
 * <p>Every method is one short transaction; none rewrites or loads the whole index, so cost does not
 * grow with the number of sessions. Times come from the store's injected clock. Implementations are
 * safe for concurrent use. A row that cannot be read raises {@link StoreException} naming its key on
 * single-key calls, and is logged and skipped by listing calls; nothing else is lost.
 */
public interface SessionStore {

    /**
     * Returns the lane for {@code key}, creating it (and its first transcript session) when absent.
     *
     * <ul>
     *   <li>A suspended lane is replaced by a fresh session id with {@code wasAutoReset} and
     *       {@code autoResetReason = suspended}; its old transcript session ends with reason
     *       {@code suspended}. Suspended beats resume-pending: the new entry is not resume-pending (B6).</li>
     *   <li>A lane whose transcript was compressed into a child follows the compression tip: the
     *       returned {@code sessionId} is the newest descendant, and the stored entry is healed to
     *       point at it. A resume-pending lane stays resume-pending (B4).</li>
     *   <li>Otherwise the entry is returned as it is, resume-pending or not, with {@code updatedAt}
     *       bumped and {@code origin} set to {@code origin}.</li>
     * </ul>
     */
    SessionEntry getOrCreate(SessionKey key, SessionSource origin);

    /**
     * The lane for a turn about to start: as {@link #getOrCreate}, but a lane that needs nothing of it (stored, not
     * suspended, its transcript not followed by a compression) is only read, and returned as {@code getOrCreate} would
     * return it ({@code updatedAt} now, {@code origin} set). Its row is bumped by the turn's start instead
     * ({@code Turns.start} with the origin), in the start's own transaction: a turn waits on one write less.
     */
    default SessionEntry forTurn(SessionKey key, SessionSource origin) {
        return getOrCreate(key, origin);
    }

    /** The lane for {@code key} as stored, following nothing and changing nothing. */
    Optional<SessionEntry> find(SessionKey key);

    /**
     * Starts a fresh transcript for the lane ({@code /new}, {@code /reset}): the old transcript
     * session ends with reason {@code session_reset} and keeps the lane's title (for {@link #conversations}); the entry
     * gets a new session id and loses its suspension, resume mark and stuck-loop count (its title stays until renamed).
     * The lane is created when absent.
     */
    SessionEntry reset(SessionKey key, SessionSource origin);

    /**
     * Marks the lane resume-pending with {@code reason} and the current time (B2).
     *
     * @return true when marked; false when the key is unknown or the lane is suspended
     *         (an explicit suspension is never overridden)
     */
    boolean markResumePending(SessionKey key, ResumeReason reason);

    /**
     * Marks the lane resume-pending only while its turn {@code turnId} is still RUNNING (has not recorded a
     * reply), in one statement. A stop uses it: a turn that records its reply at that moment is either
     * marked first (and clears the mark itself on success) or not marked at all, never marked after.
     *
     * @return true when marked; false when the turn no longer runs, the key is unknown or the lane is suspended
     */
    boolean markResumePendingWhileRunning(SessionKey key, long turnId, ResumeReason reason);

    /** Marks the lane resume-pending with the default reason, {@code restart_timeout}. */
    default boolean markResumePending(SessionKey key) {
        return markResumePending(key, ResumeReason.RESTART_TIMEOUT);
    }

    /** Clears the resume mark, reason and mark time; true only when a mark was cleared (B3). */
    boolean clearResumePending(SessionKey key);

    /**
     * Suspends the lane for {@code reason}, recording the reason and the time: its next lookup starts
     * a fresh session. A lane already suspended keeps its first reason. False when the key is unknown.
     */
    boolean suspend(SessionKey key, SuspendReason reason);

    /**
     * Lifts a suspension (an operator's Unsuspend): the lane's next message continues its current transcript
     * instead of starting a fresh one. The stuck-loop counter is cleared with it. False when the key is unknown
     * or the lane is not suspended.
     */
    boolean unsuspend(SessionKey key);

    /**
     * Gives the lane the title its user chose (a renamed web chat conversation); null or blank removes it.
     * At most 200 characters are kept. False when the key is unknown.
     */
    boolean rename(SessionKey key, String title);

    /**
     * The lane's conversations ({@link Conversation}): every transcript stored under its key that did not continue in a
     * compression child, the current one first, then the most recently active first; at most {@code limit}. Its title is
     * the one stored with the transcript when the lane left it ({@link #reset}, {@link #switchTo}), the lane's title for
     * the current one. Empty when the key is unknown.
     */
    List<Conversation> conversations(SessionKey key, int limit);

    /**
     * Makes {@code sessionId}, one of the lane's conversations, its current transcript again ({@code /resume}), in one
     * transaction: the lane's title is stored with the transcript it leaves, which ends as a reset does (and stays
     * listed); the chosen transcript (followed through compression) is live again and the lane takes its title; the
     * lane's suspension, resume mark and stuck-loop count are cleared and its token counts start from zero. Empty when
     * the key is unknown or the transcript is not one of the lane's; the lane unchanged when it is already current.
     */
    Optional<SessionEntry> switchTo(SessionKey key, String sessionId);

    /**
     * Hides the lane from its user's conversation list (a deleted web chat conversation) and records when;
     * its transcript and turns are kept. A hidden lane stays hidden. False when the key is unknown.
     */
    boolean hide(SessionKey key);

    /**
     * Gives the lanes of {@code platform} whose origin's user is {@code fromUser} to {@code toUser}: their origin's user
     * id becomes {@code toUser} (nothing else changes, not even {@code updatedAt}). One transaction; idempotent (a second
     * call finds none). Returns how many lanes changed. The web chat's conversations from before accounts become the
     * first admin's this way.
     */
    int reassignUser(dev.herald.core.platform.Platform platform, String fromUser, String toUser);

    /**
     * Resume-pending lanes that are not suspended, optionally only those whose origin is on
     * {@code platform}, oldest mark first. Unreadable rows are logged and skipped.
     */
    List<SessionEntry> listResumePending(Optional<Platform> platform);

    /**
     * Adds one to the stuck-loop counter of each lane (a stop or crash cut off one of its turns).
     * Unknown keys are ignored. The counter lives only here (spec E4, G3).
     */
    void countInterruption(Collection<SessionKey> keys);

    /** Sets the lane's stuck-loop counter back to zero (its turn succeeded). */
    void clearInterruptions(SessionKey key);

    /**
     * Suspends every lane whose stuck-loop counter reached {@code threshold} and removes their
     * counters (spec E4, G3).
     *
     * @return the keys suspended by this call
     */
    List<SessionKey> suspendStuckLoops(int threshold);

    /** Adds model token usage to the lane's current session. */
    void addUsage(SessionKey key, long inputTokens, long outputTokens);

    /**
     * A page of lanes matching {@code query}, newest activity first, served by an index (never a scan of
     * every row for the common filters). Unreadable rows are logged and skipped.
     */
    List<SessionEntry> search(SessionQuery query);

    /** Number of lanes stored (for status pages; may be an estimate on very large stores). */
    long count();

    // ---- the lane's lease (several nodes on one store) ---------------------------------------------

    /**
     * Takes the lane's lease for {@code node}, in one compare-and-set: the node must be running, and the lease free,
     * already its own, or held by a node that is gone, or that drains and neither runs nor delivers a turn of the lane;
     * with {@code fromIdleHolder}, also from a running node that neither runs nor delivers a turn of the lane. False when
     * another node keeps it (or the lane does not exist).
     */
    boolean takeLease(SessionKey key, String node, boolean fromIdleHolder);

    /** The node holding the lane's lease, if any (it may be gone). */
    Optional<String> leaseHolder(SessionKey key);

    /** Resume-pending, unsuspended lanes whose lease a node that is gone held: what a surviving node resumes. */
    List<SessionKey> resumePendingOfGoneNodes(int limit);
    /**
     * Removes the lane for good (an operator's Purge): in one transaction, every transcript of the lane (the rows of
     * every transcript session stored under its key, through resets and compressions) and those sessions, its turns,
     * its model choice and its row. Another lane's transcript that continued one of them loses only its parent link.
     * Refused, removing nothing, while a turn of the lane is not finished (received, running, awaiting delivery) or the
     * lane is resume-pending.
     */
    PurgeResult purge(SessionKey key);
}
