package dev.herald.testkit.gateway;

/**
 * The store invariants {@link GatewayHarness} checks after every test. A test whose scenario breaks one on purpose
 * (a simulated crash that leaves a turn RUNNING, a platform without idempotency that receives a part twice) skips
 * exactly that one with {@link GatewayHarness#skipCheck}, giving its reason.
 */
public enum Invariant {
    /**
     * No turn is left RUNNING: while the gateway runs, every RUNNING turn in the store is run by one of its lanes;
     * once it has stopped, none is RUNNING.
     */
    NO_TURN_LEFT_RUNNING,
    /**
     * At most one final reply per turn: the platforms accepted at most one final message for each turn (a resend the
     * platform answered with the same message for the same idempotency key is that one message), and a delivered turn
     * names the message the platform answered.
     */
    ONE_FINAL_REPLY_PER_TURN,
    /** No resume mark on a lane whose newest started turn ended by itself with a success (spec A1). */
    NO_RESUME_MARK_ON_FINISHED_LANE,
    /** Every transcript a turn ran in is numbered 1, 2, 3, ... without gaps. */
    DENSE_TRANSCRIPTS
}
