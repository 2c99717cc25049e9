package dev.herald.core.continuity;

import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionStore;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.util.Collection;

/**
 * The session side of continuity while the gateway runs: when a lane is marked resume-pending, when the mark is
 * cleared, and what the stuck-loop counter counts. The store only performs each rule's one statement.
 *
 * <ul>
 *   <li>A stop marks a lane only while its turn is still RUNNING in the store, in one statement (E1): a turn that
 *       records its reply at that moment is either marked first (and clears the mark itself on success) or not
 *       marked at all.</li>
 *   <li>A mark a stop set is cleared again when the lane's turn ended by itself (it finished, or only its reply was
 *       still being sent): such a turn was not cut off and must not be resumed.</li>
 *   <li>Each stop or crash that cut off a lane's turn counts one (E4, G3); the lane's next success clears the count
 *       and the resume mark (A1).</li>
 * </ul>
 */
public final class ResumeMarks {
    private final SessionStore sessions;
    private final Turns turns;

    public ResumeMarks(SessionStore sessions, Turns turns) {
        this.sessions = sessions;
        this.turns = turns;
    }

    /** Marks the lane while turn {@code turnId} still runs (E1); true when this call set a mark the lane did not have. */
    public boolean markWhileRunning(SessionKey key, long turnId, ResumeReason reason) {
        boolean wasPending = sessions.find(key).map(e -> e.resumePending()).orElse(false);
        return sessions.markResumePendingWhileRunning(key, turnId, reason) && !wasPending;
    }

    /**
     * Clears a mark a stop set on an idle lane whose newest turn ended by itself (anything but cut off), or is only
     * delivering its recorded reply; true when it cleared one.
     */
    public boolean clearIfEndedByItself(SessionKey key) {
        boolean endedByItself = turns.latestStarted(key)
                .map(t -> t.state().terminal() && t.state() != TurnState.INTERRUPTED || t.state() == TurnState.AWAITING_DELIVERY)
                .orElse(false);
        return endedByItself && sessions.clearResumePending(key);
    }

    /** One more stop or crash cut off a turn of each of these lanes (E4, G3). */
    public void countCutOff(Collection<SessionKey> keys) {
        if (!keys.isEmpty()) {
            sessions.countInterruption(keys);
        }
    }

    /** After a turn ended: a success clears the resume mark and the stuck-loop count (A1, G3); anything else keeps them. */
    public void settle(SessionKey key, TurnOutcome outcome) {
        if (!outcome.clearsResumePending()) {
            return;
        }
        sessions.find(key).ifPresent(e -> {
            if (e.resumePending()) {
                sessions.clearResumePending(key);
            }
            if (e.interruptedRestarts() > 0) {
                sessions.clearInterruptions(key);
            }
        });
    }
}
