package dev.herald.app.runtime;

import dev.herald.core.gateway.StopKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Signals the gateway process answers: SIGTERM and SIGINT stop it gracefully (drain, then exit 0),
 * SIGUSR1 restarts it (drain, then exit 75 so the supervisor or the service manager starts a new one).
 * A SIGTERM or SIGINT that comes at least {@link #AGAIN} after the first is an operator's second Ctrl-C: the drain
 * stops waiting and cuts off what still runs, marked for resume first. Signals closer together are one request:
 * a terminal's Ctrl-C reaches this process directly and again through the supervisor (which passes a signal on as itself).
 */
public final class Signals {
    private static final Logger log = LoggerFactory.getLogger("runtime");

    /** How long after the first stop signal another one counts as a second request. */
    static final java.time.Duration AGAIN = java.time.Duration.ofSeconds(1);

    private Signals() {
    }

    public static void install(StopRequests stops) {
        // one line per stop: a terminal's Ctrl-C reaches the supervisor and the gateway, and the supervisor passes
        // it on; the signals after the first only repeat the request (the first one wins)
        java.util.concurrent.atomic.AtomicLong firstAt = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE);
        handleOnce("TERM", firstAt, stops, () -> stops.request(StopKind.SHUTDOWN, false));
        handleOnce("INT", firstAt, stops, () -> stops.request(StopKind.SHUTDOWN, false));
        handleOnce("USR1", firstAt, stops, () -> stops.request(StopKind.RESTART, false));
    }

    private static void handleOnce(String name, java.util.concurrent.atomic.AtomicLong firstAt, StopRequests stops, Runnable action) {
        try {
            Signal.handle(new Signal(name), sig -> {
                long now = System.nanoTime();
                if (firstAt.compareAndSet(Long.MIN_VALUE, now)) {
                    log.info("runtime - SIG{} received: {}", name, name.equals("USR1") ? "restarting" : "stopping");
                } else if (!name.equals("USR1") && now - firstAt.get() >= AGAIN.toNanos()) {
                    log.info("runtime - SIG{} received again: stopping now", name);
                    stops.hurry();
                } else {
                    log.debug("runtime - SIG{} received while already stopping", name);
                }
                action.run();
            });
        } catch (IllegalArgumentException e) {
            log.warn("runtime - cannot handle SIG{} here: {}", name, e.getMessage());
        }
    }
}
