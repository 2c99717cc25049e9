package dev.herald.app.runtime;

import java.util.Map;
import java.util.Optional;

/**
 * Whether this process takes over from another one in a restart that hands over: the supervisor starts it with the
 * old process's node id and pid ({@code HERALD_HANDOVER_FROM}, {@code HERALD_HANDOVER_PID}) while the old one still
 * runs on the same home. Such a process shares the old one's port and store for the overlap, counts its start as clean,
 * and leaves the old one's running turns to it.
 *
 * @param predecessorNode the old process's node id, or null when this is an ordinary start
 * @param predecessorPid  the old process's pid, or 0
 */
public record Succession(String predecessorNode, long predecessorPid) {
    public static final String FROM_ENV = "HERALD_HANDOVER_FROM";
    public static final String PID_ENV = "HERALD_HANDOVER_PID";

    public static Succession none() {
        return new Succession(null, 0);
    }

    /** From the environment the supervisor set; {@link #none()} when it set nothing (or nothing readable). */
    public static Succession fromEnv(Map<String, String> env) {
        String node = env.get(FROM_ENV);
        String pid = env.get(PID_ENV);
        if (node == null || node.isBlank() || pid == null) {
            return none();
        }
        try {
            return new Succession(node.strip(), Long.parseLong(pid.strip()));
        } catch (NumberFormatException e) {
            return none();
        }
    }

    /** True while the process this one takes over from still runs. */
    public boolean takingOver() {
        return predecessorNode != null && predecessorPid > 0
                && ProcessHandle.of(predecessorPid).map(ProcessHandle::isAlive).orElse(false);
    }

    public Optional<String> predecessor() {
        return Optional.ofNullable(predecessorNode);
    }
}
