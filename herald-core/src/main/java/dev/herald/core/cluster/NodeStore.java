package dev.herald.core.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The node registry's primitives: one row per gateway process that ever ran on the store. Every time here is the
 * database's clock (PostgreSQL's {@code now()}; on SQLite, whose nodes share one host, that host's clock), never a
 * node's own: a node's lease runs out when the database says so. {@link Membership} is the one user.
 */
public interface NodeStore {

    /**
     * Registers {@code me} as RUNNING with a lease of {@code lease} from now; {@code successorOf} names the node it takes
     * over from in a restart (null otherwise). Registering an id that exists replaces its row.
     */
    NodeRecord register(NodeIdentity me, Duration lease, String successorOf);

    /**
     * Extends the node's lease to {@code lease} from now; false when the node is GONE (another node judged it dead and
     * took its work, so it must not write again) or unknown.
     */
    boolean heartbeat(String nodeId, Duration lease);

    /** Moves the node from {@code from} to {@code to}; false when it was not in {@code from}. */
    boolean move(String nodeId, NodeState from, NodeState to);

    /**
     * Marks the node GONE (compare-and-set: only one caller wins); with {@code onlyIfExpired}, only while its lease has
     * run out by the database's clock.
     */
    boolean markGone(String nodeId, boolean onlyIfExpired);

    /** Marks every node GONE that is not gone yet, except those in {@code keep}; returns their ids. */
    List<String> markGoneExcept(Set<String> keep);

    /** Nodes that are not GONE and whose lease has run out by the database's clock. */
    List<NodeRecord> expired();

    /** Every node that is not GONE, and the {@code recentGone} most recently started GONE ones, newest first. */
    List<NodeRecord> list(int recentGone);

    /** The database's clock now. */
    Instant now();

    /**
     * Takes the lease of the single connection to {@code platform} for {@code node}, in one compare-and-set: the node must
     * be running, and the lease free, its own, or held by a node that is not running (draining, gone or unknown).
     */
    boolean takePlatform(String platform, String node);

    /** Gives up the lease of the connection to {@code platform} when {@code node} holds it. */
    boolean releasePlatform(String platform, String node);

    /** Which node holds each platform's connection lease (holders that no longer run included). */
    java.util.Map<String, String> platformHolders();
}
