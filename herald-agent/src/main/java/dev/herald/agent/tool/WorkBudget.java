package dev.herald.agent.tool;

import dev.herald.core.agent.Interrupt;
import java.util.concurrent.TimeUnit;

/**
 * The work one tool call may still do: a deadline and the turn's interrupt. CPU-bound steps (turning a page
 * into text) call {@link #check()} often enough that a stop or the time limit ends them within milliseconds.
 */
public final class WorkBudget {
    private final long deadlineNanos;
    private final Interrupt interrupt;

    /** The work ran out: {@link #interrupted()} tells a stop from the time limit. */
    public static final class Exhausted extends RuntimeException {
        private final boolean interrupted;

        Exhausted(String message, boolean interrupted) {
            super(message, null, false, false);
            this.interrupted = interrupted;
        }

        public boolean interrupted() {
            return interrupted;
        }
    }

    public WorkBudget(long deadlineNanos, Interrupt interrupt) {
        this.deadlineNanos = deadlineNanos;
        this.interrupt = interrupt;
    }

    /** Throws {@link Exhausted} when the turn was stopped, the thread interrupted, or the deadline passed. */
    public void check() {
        if (interrupt.isRaised()) {
            throw new Exhausted("stopped (" + interrupt.reason() + ")", true);
        }
        if (Thread.currentThread().isInterrupted()) {
            throw new Exhausted("stopped (thread interrupted)", true);
        }
        if (System.nanoTime() - deadlineNanos > 0) {
            throw new Exhausted("the time limit passed", false);
        }
    }

    /** The deadline, in {@link System#nanoTime()} time. */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** Milliseconds left, at least 0. */
    public long remainingMillis() {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }
}
