package dev.herald.core.cluster;

import java.time.Instant;
import java.util.Objects;

/**
 * One node as the registry holds it, with what it owns now.
 *
 * @param id           the node's id
 * @param state        running, draining or gone
 * @param host         its host name
 * @param pid          its process id
 * @param processKey   see {@link NodeIdentity#processKey()}; null when unknown
 * @param startedAt    when it registered (the database's clock)
 * @param heartbeatAt  its last heartbeat (the database's clock)
 * @param expiresAt    when its lease runs out unless it beats again (the database's clock)
 * @param successorOf  the node it took over from in a restart (handover), or null
 * @param sessions     sessions whose lease it holds
 * @param runningTurns turns it runs now
 */
public record NodeRecord(String id, NodeState state, String host, long pid, String processKey, Instant startedAt, Instant heartbeatAt,
        Instant expiresAt, String successorOf, int sessions, int runningTurns) {

    public NodeRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(host, "host");
    }

    /** {@code pid 4242 on host1}. */
    public String describe() {
        return "pid " + pid + " on " + host;
    }
}
