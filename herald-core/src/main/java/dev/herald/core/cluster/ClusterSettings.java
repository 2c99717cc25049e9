package dev.herald.core.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * How this gateway takes part in the node registry.
 *
 * @param enabled     true when several nodes may share the store ({@code cluster.enabled}); false: this node is the only
 *                    one, and every other registered node is gone, except {@code predecessor} while it hands over
 * @param identity    this node
 * @param lease       how long a node's lease lasts without a heartbeat ({@code cluster.lease_seconds}); it beats every
 *                    third of it
 * @param predecessor the node this one takes over from in a restart (handover), or null
 */
public record ClusterSettings(boolean enabled, NodeIdentity identity, Duration lease, String predecessor) {
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(15);

    public ClusterSettings {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(lease, "lease");
        if (lease.toMillis() < 300) {
            throw new IllegalArgumentException("cluster - the lease must be at least 0.3 s, was " + lease.toMillis() + " ms");
        }
        predecessor = predecessor == null || predecessor.isBlank() ? null : predecessor;
    }

    /** One node, no clustering, a node id of its own (tests and embedding). */
    public static ClusterSettings single() {
        return new ClusterSettings(false, NodeIdentity.embedded("gateway"), DEFAULT_LEASE, null);
    }

    /** How often the node beats: a third of its lease. */
    public Duration heartbeat() {
        return lease.dividedBy(3);
    }
}
