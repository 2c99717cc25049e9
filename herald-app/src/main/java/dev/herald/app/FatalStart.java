package dev.herald.app;

import dev.herald.core.config.ConfigException;
import dev.herald.core.session.StoreException;
import java.net.BindException;
import java.util.Optional;

/**
 * Failures that no restart can cure: the configuration, or the machine around the process, has to change first.
 * A port another program holds, a database file that is not a database (or one written by a newer Herald, or one
 * the login may not open), a store another gateway holds, a configuration error found only at run time. They end
 * the process with exit 78 (EX_CONFIG) and one line, which the supervisor and systemd
 * ({@code RestartPreventExitStatus=78}) take as "do not restart". Everything else is a crash and is restarted.
 */
final class FatalStart {
    private FatalStart() {
    }

    /** The one line that explains {@code failure} when it is fatal, else empty (a crash: restarting may help). */
    static Optional<String> line(Throwable failure) {
        if (failure instanceof ConfigException) {
            return Optional.of(oneLine(failure.getMessage()));
        }
        if (failure instanceof StoreException store && !store.retryable()) {
            return Optional.of(oneLine(store.getMessage()));
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof BindException || t.getClass().getSimpleName().equals("JavalinBindException")) {
                String top = failure.getMessage() == null ? "" : failure.getMessage();
                return Optional.of(oneLine(top.startsWith("web - ") ? top
                        : "web - cannot listen on the configured address (" + t.getMessage() + "); pick a free port or stop the other process"));
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }

    /** The message on one line: a driver's multi-line detail would otherwise read as many errors. */
    private static String oneLine(String message) {
        return message == null ? "herald - failed without a message" : message.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
