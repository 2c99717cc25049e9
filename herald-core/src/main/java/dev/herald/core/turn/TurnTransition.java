package dev.herald.core.turn;

import java.util.Optional;

/**
 * The transition table of a turn: every move a turn may make, named. It is the single source of the
 * lifecycle: {@link Turns} moves a turn only along these rows, the store's conditional update is built from
 * a row's {@link #from()} and {@link #to()}, a test fails when a row has no test that exercises it, and the
 * state diagram in {@code docs/turn-states.md} is generated from it ({@link TurnDiagram}).
 */
public enum TurnTransition {
    /** The user's row is stored and the agent runs (one transaction; refused while another turn of the lane runs). */
    START(TurnState.RECEIVED, TurnState.RUNNING, "user row stored, agent runs"),
    /** The turn will never run: its sender lost access, /stop, nothing left to resume, superseded at start-up. */
    CANCEL(TurnState.RECEIVED, TurnState.CANCELLED, "will never run"),
    /** The final reply is recorded before it is sent (at most one final reply per turn, across restarts). */
    RECORD_REPLY(TurnState.RUNNING, TurnState.AWAITING_DELIVERY, "reply recorded before it is sent"),
    /** The turn ended with nothing to send. */
    COMPLETE(TurnState.RUNNING, TurnState.DELIVERED, "nothing to send"),
    /** Cut off: a stop, a crash, or no live lane owns it any more. */
    INTERRUPT(TurnState.RUNNING, TurnState.INTERRUPTED, "cut off"),
    /** An error ended the turn before it had a reply; the error is recorded and the chat is told. */
    FAIL(TurnState.RUNNING, TurnState.FAILED, "error recorded, chat told"),
    /** The platform took the reply (every part of it). */
    DELIVER(TurnState.AWAITING_DELIVERY, TurnState.DELIVERED, "every part sent"),
    /** The platform refused the reply for good (chat gone, bot blocked). */
    REFUSE(TurnState.AWAITING_DELIVERY, TurnState.UNDELIVERABLE, "refused for good");

    private final TurnState from;
    private final TurnState to;
    private final String label;

    TurnTransition(TurnState from, TurnState to, String label) {
        this.from = from;
        this.to = to;
        this.label = label;
    }

    public TurnState from() {
        return from;
    }

    public TurnState to() {
        return to;
    }

    /** A few words for the diagram and logs. */
    public String label() {
        return label;
    }

    /** The row of the table that moves {@code from} to {@code to}, if there is one. */
    public static Optional<TurnTransition> between(TurnState from, TurnState to) {
        for (TurnTransition t : values()) {
            if (t.from == from && t.to == to) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
