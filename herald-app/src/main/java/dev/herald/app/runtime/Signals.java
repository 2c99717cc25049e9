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
        handle("TERM", () -> stops.request(StopKind.SHUTDOWN, false));
        handle("INT", () -> stops.request(StopKind.SHUTDOWN, false));
        handle("USR1", () -> stops.request(StopKind.RESTART, false));
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
