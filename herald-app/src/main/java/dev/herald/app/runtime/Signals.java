package dev.herald.app.runtime;

import dev.herald.core.gateway.StopKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Signals the gateway process answers: SIGTERM and SIGINT stop it gracefully (drain, then exit 0),
 * SIGUSR1 restarts it (drain, then exit 75 so the supervisor or the service manager starts a new one).
 */
public final class Signals {
    private static final Logger log = LoggerFactory.getLogger("runtime");

    private Signals() {
    }

    public static void install(StopRequests stops) {
        // one line per stop: a terminal's Ctrl-C reaches the supervisor and the gateway, and the supervisor passes
        // it on as SIGTERM; the signals after the first only repeat the request (the first one wins)
        java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
        handleOnce("TERM", stopping, () -> stops.request(StopKind.SHUTDOWN, false));
        handleOnce("INT", stopping, () -> stops.request(StopKind.SHUTDOWN, false));
        handleOnce("USR1", stopping, () -> stops.request(StopKind.RESTART, false));
    }

    private static void handleOnce(String name, java.util.concurrent.atomic.AtomicBoolean stopping, Runnable action) {
        try {
            Signal.handle(new Signal(name), sig -> {
                if (stopping.compareAndSet(false, true)) {
                    log.info("runtime - SIG{} received: {}", name, name.equals("USR1") ? "restarting" : "stopping");
                } else {
                    log.debug("runtime - SIG{} received while already stopping", name);
                }
                action.run();
            });
        } catch (IllegalArgumentException e) {
            log.warn("runtime - cannot handle SIG{} here: {}", name, e.getMessage());
        }
    }

    static void handle(String name, Runnable action) {
        try {
            Signal.handle(new Signal(name), sig -> {
                log.info("runtime - SIG{} received", name);
                action.run();
            });
        } catch (IllegalArgumentException e) {
            log.warn("runtime - cannot handle SIG{} here: {}", name, e.getMessage());
        }
    }
}
