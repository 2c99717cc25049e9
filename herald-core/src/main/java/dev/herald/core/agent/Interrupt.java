package dev.herald.core.agent;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The interrupt signal of one running turn. The gateway raises it (/stop, the interrupt busy policy,
 * a shutdown's drain timeout); the agent checks it between steps and registers cleanups (cancel a model
 * stream, kill a tool process) that run once, on the raising thread, when it is raised.
 */
public final class Interrupt {
    private final AtomicReference<String> reason = new AtomicReference<>();
    private final List<Runnable> onRaise = new CopyOnWriteArrayList<>();

    /** Raises the signal; the first reason wins. Returns true when this call raised it. */
    public boolean raise(String why) {
        if (!reason.compareAndSet(null, why == null ? "interrupted" : why)) {
            return false;
        }
        for (Runnable r : onRaise) {
            try {
                r.run();
            } catch (RuntimeException e) {
                // a failing cleanup must not stop the others
            }
        }
        return true;
    }

    public boolean isRaised() {
        return reason.get() != null;
    }

    /** The reason it was raised with, or null. */
    public String reason() {
        return reason.get();
    }

    /** Registers a cleanup; it runs at once when the signal is already raised. */
    public void onRaise(Runnable cleanup) {
        onRaise.add(cleanup);
        if (isRaised() && onRaise.remove(cleanup)) {
            cleanup.run();
        }
    }

    /** Removes a cleanup that is no longer needed (the stream ended, the process exited). */
    public void forget(Runnable cleanup) {
        onRaise.remove(cleanup);
    }
}
