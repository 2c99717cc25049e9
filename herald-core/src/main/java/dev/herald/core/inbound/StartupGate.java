package dev.herald.core.inbound;

import dev.herald.core.turn.TurnRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Holds ordinary inbound turns while start-up restore runs (spec F6, F7). Held turns are already
 * stored durably; the gate only delays their dispatch. Opening replays them in arrival order, under
 * the gate's lock, so a message arriving during the replay cannot overtake an older one.
 */
public final class StartupGate {
    private final ReentrantLock lock = new ReentrantLock();
    private final List<TurnRecord> held = new ArrayList<>();
    private boolean open;

    /** Holds the turn when the gate is closed; false when it is open and the caller should dispatch. */
    public boolean hold(TurnRecord turn) {
        lock.lock();
        try {
            if (open) {
                return false;
            }
            held.add(turn);
            return true;
        } finally {
            lock.unlock();
        }
    }

    public boolean isOpen() {
        lock.lock();
        try {
            return open;
        } finally {
            lock.unlock();
        }
    }

    public int heldCount() {
        lock.lock();
        try {
            return held.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Opens the gate, handing every held turn to {@code dispatch} in arrival order first. A dispatch
     * that throws is contained so the gate always opens.
     *
     * @return how many turns were replayed
     */
    public int open(Consumer<TurnRecord> dispatch) {
        lock.lock();
        try {
            if (open) {
                return 0;
            }
            held.sort(Comparator.comparingLong(TurnRecord::id));
            int n = 0;
            for (TurnRecord t : held) {
                try {
                    dispatch.accept(t);
                    n++;
                } catch (RuntimeException e) {
                    org.slf4j.LoggerFactory.getLogger(StartupGate.class)
                            .error("gateway - replaying held turn {} of {} failed; it stays stored", t.id(), t.sessionKey(), e);
                }
            }
            held.clear();
            open = true;
            return n;
        } finally {
            lock.unlock();
        }
    }
}
