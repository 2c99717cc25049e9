package dev.herald.core.lanes;

import dev.herald.core.agent.TurnOptions;
import dev.herald.core.turn.TurnRecord;
import java.util.Optional;

/**
 * Turn options that come from what is stored about the turn's request, not from a platform's memory: a scheduled job's
 * model profile and tool list, looked up from the job when its turn runs. Because they are read from the store, a
 * turn resumed after a crash gets them again ({@link TurnOptionsLookup} follows a resume turn back to the turn it
 * continues).
 */
@FunctionalInterface
public interface StoredTurnOptions {
    /** Nothing is stored for any turn. */
    StoredTurnOptions NONE = turn -> Optional.empty();

    /**
     * The options of the turn {@code asked} records (never a resume turn); empty when nothing is stored for it. An
     * implementation decides which turns it trusts (a job's options only for turns the scheduler made).
     */
    Optional<TurnOptions> of(TurnRecord asked);
}
