package dev.herald.core.gateway;

import dev.herald.core.session.SessionKey;
import java.time.Duration;
import java.util.List;

/**
 * What a stop did.
 *
 * @param kind        shutdown or restart
 * @param interrupted sessions whose turns were still running when the drain timed out and were cut off
 * @param took        how long the stop took
 */
public record StopReport(StopKind kind, List<SessionKey> interrupted, Duration took) {
    public StopReport {
        interrupted = List.copyOf(interrupted);
    }

    /** True when nothing was cut off: the next start needs no recovery (the clean-stop marker may be written). */
    public boolean clean() {
        return interrupted.isEmpty();
    }
}
