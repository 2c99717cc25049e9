package dev.herald.core.cluster;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code cluster:} whether several Herald nodes share one store (PostgreSQL), and this node's place among them. Off by
 * default: one gateway per store, and a second one is refused. On, every node registers with a heartbeat, runs the
 * sessions whose lease it holds, and takes over the sessions and turns of a node whose lease runs out. The configuration
 * loader binds the section straight into this record; {@link #settings(String)} is the registry's {@link ClusterSettings}
 * for this process.
 */
public record ClusterConfig(
        @Doc("true: several nodes share the store (every node sets it); false: one gateway per store, a second is refused")
        boolean enabled,
        @Doc("this node's id in the registry; not set = host name, pid and start time (a new id for every start)")
        String nodeId,
        @Doc("seconds a node's lease lasts without a heartbeat (it beats every third of it); another node takes over its work "
                + "when it runs out, judged by the database's clock")
        double leaseSeconds) implements Validated {

    private static final java.util.regex.Pattern NODE_ID = java.util.regex.Pattern.compile("[A-Za-z0-9._:-]{1,100}");

    public ClusterConfig {
        nodeId = nodeId == null || nodeId.isBlank() ? null : nodeId.strip();
    }

    /** The registry's own defaults ({@link ClusterSettings}): one default per setting. */
    public static ClusterConfig defaults() {
        return new ClusterConfig(false, null, ClusterSettings.DEFAULT_LEASE.toMillis() / 1000.0);
    }

    public Duration lease() {
        return Duration.ofMillis(Math.round(leaseSeconds * 1000));
    }

    public Optional<String> configuredNodeId() {
        return Optional.ofNullable(nodeId);
    }

    /**
     * This process as a node: {@code predecessor} is the node it takes over from in a restart, or null. A configured
     * {@code node_id} is still held by the predecessor during a handover, so the new process runs as {@code <id>.next}
     * then, and the next handover goes back to {@code <id>}.
     */
    public ClusterSettings settings(String predecessor) {
        Optional<String> id = configuredNodeId().map(configured -> configured.equals(predecessor) ? configured + ".next" : configured);
        return new ClusterSettings(enabled, NodeIdentity.thisProcess(id), lease(), predecessor);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(Double.isFinite(leaseSeconds) && leaseSeconds >= 1 && leaseSeconds <= 3600, "lease_seconds",
                "must be 1 to 3,600 seconds, was " + ConfigChecks.number(leaseSeconds));
        check.require(nodeId == null || NODE_ID.matcher(nodeId).matches(), "node_id",
                "must be 1-100 letters, digits, '.', '_', ':' or '-'");
    }
}
