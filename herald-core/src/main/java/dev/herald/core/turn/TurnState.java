package dev.herald.core.turn;

import java.util.EnumSet;
import java.util.Set;

/**
 * The lifecycle of one turn, persisted as a column. Allowed moves:
 *
 * <pre>
 *   RECEIVED --start--> RUNNING --reply recorded--> AWAITING_DELIVERY --sent--> DELIVERED
 *   RECEIVED --cancel-> CANCELLED          RUNNING --nothing to send--> DELIVERED
 *   RUNNING  --cut off (stop, crash)--> INTERRUPTED
 *   RUNNING  --failed, nothing to send--> FAILED
 *   AWAITING_DELIVERY --the platform refused it for good (chat gone, bot blocked)--> UNDELIVERABLE
 * </pre>
 *
 * RECEIVED turns are the durable inbound queue: they survive a crash and are replayed at start-up.
 * RUNNING turns found at start-up were cut off by a crash (spec G2). AWAITING_DELIVERY turns hold a
 * reply that was generated but not confirmed sent; it is delivered from the record, never regenerated,
 * and retried until the platform takes it or refuses it for good.
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

    /** Whether the state machine allows moving from this state to {@code next}. */
    public boolean canMoveTo(TurnState next) {
        return switch (this) {
            case RECEIVED -> next == RUNNING || next == CANCELLED;
            case RUNNING -> next == AWAITING_DELIVERY || next == DELIVERED || next == INTERRUPTED || next == FAILED;
            case AWAITING_DELIVERY -> next == DELIVERED || next == UNDELIVERABLE;
            case DELIVERED, CANCELLED, INTERRUPTED, FAILED, UNDELIVERABLE -> false;
        };
    }
}
