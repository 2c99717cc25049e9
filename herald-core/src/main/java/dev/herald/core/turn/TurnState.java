package dev.herald.core.turn;

import java.util.EnumSet;
import java.util.Set;

/**
 * The lifecycle of one turn, persisted as a column. The moves allowed between states are
 * {@link TurnTransition}'s table, the single source: {@link #canMoveTo} reads it, the store derives its
 * compare-and-set from it, and {@code docs/turn-states.md} is generated from it.
 *
 * <p>RECEIVED turns are the durable inbound queue: they survive a crash and are replayed at start-up.
 * RUNNING turns found at start-up, or found without a live lane while the gateway runs, were cut off
 * (spec G2). AWAITING_DELIVERY turns hold a reply that was generated but not confirmed sent; it is
 * delivered from the record, never regenerated, and retried until the platform takes it or refuses it
 * for good. At most one turn per lane is RUNNING (the store enforces it with a unique index).
 */
public enum TurnState {
    RECEIVED,
    RUNNING,
    AWAITING_DELIVERY,
    DELIVERED,
    CANCELLED,
    INTERRUPTED,
    FAILED,
    UNDELIVERABLE;

    private static final Set<TurnState> TERMINAL = EnumSet.of(DELIVERED, CANCELLED, INTERRUPTED, FAILED, UNDELIVERABLE);

    public boolean terminal() {
        return TERMINAL.contains(this);
    }

    /** Whether the transition table allows moving from this state to {@code next}. */
    public boolean canMoveTo(TurnState next) {
        return TurnTransition.between(this, next).isPresent();
    }

    /** Whether at most one turn of a lane may be in this state at a time (a move into it checks the lane). */
    public boolean onePerLane() {
        return this == RUNNING;
    }
}
