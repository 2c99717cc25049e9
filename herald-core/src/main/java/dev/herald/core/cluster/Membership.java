package dev.herald.core.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This gateway's place in the node registry: it registers the node, keeps its lease alive, judges which other nodes
 * are dead, and says whether this node may still write.
 *
 * <p>Design. A node's lease is judged by the database's clock only ({@link NodeStore}): another node is dead when its
 * lease ran out by that clock, or at once when it ran on this host and its process is gone (a kill -9, a previous
 * incarnation of this gateway). Judging is a compare-and-set to GONE, so of two nodes that judge a third, one wins;
 * GONE is final, and the store refuses every turn write of a GONE node (fencing), so a node that was paused past its
 * lease and wakes up cannot write over the work another node took.
 *
 * <p>The node's own view of its lease is kept on the monotonic clock: it is valid until the time it <em>sent</em> its
 * last successful heartbeat plus the lease, which is never later than the database's expiry of it. Writes that the
 * store cannot fence (a transcript row, a platform call) check it first ({@link #holdsLease()}); after a pause the check
 * costs one heartbeat, which either renews the lease or finds the node GONE.
 *
 * <p>Without clustering the node is the only one: joining marks every other node GONE (the single-owner claim on the
 * store proves they are dead), except the predecessor of a restart, which lives until it has handed over.
 */
public final class Membership {
    private static final Logger log = LoggerFactory.getLogger("cluster");

    private final NodeStore store;
    private final ClusterSettings settings;
    private volatile long validUntilNanos = Long.MIN_VALUE;
    private volatile boolean fenced;
    private volatile boolean joined;
    private volatile Runnable onFenced = () -> {
    };

    public Membership(NodeStore store, ClusterSettings settings) {
        this.store = store;
        this.settings = settings;
    }

    public String id() {
        return settings.identity().id();
    }

    public ClusterSettings settings() {
        return settings;
    }

    public boolean clustered() {
        return settings.enabled();
    }

    /** What to do when this node finds it was judged dead (its work taken): stop without writing. Called once. */
    public void onFenced(Runnable action) {
        this.onFenced = action;
    }

    /**
     * Registers this node; without clustering, every other node but the predecessor is marked GONE. Returns those.
     *
     * @throws dev.herald.core.session.StoreException when a live node of another process holds this node's id
     */
    public List<String> join() {
        for (NodeRecord n : store.list(0)) {
            if (n.id().equals(id()) && !java.util.Objects.equals(n.processKey(), settings.identity().processKey())
                    && !settings.identity().sameHostProcessGone(n.processKey()) && n.expiresAt().isAfter(store.now())) {
                throw dev.herald.core.session.StoreException.nodeIdInUse(id(), n.describe());
            }
        }
        long sent = System.nanoTime();
        store.register(settings.identity(), settings.lease(), settings.predecessor());
        validUntilNanos = sent + settings.lease().toNanos();
        joined = true;
        List<String> gone = List.of();
        if (!clustered()) {
            Set<String> keep = new HashSet<>();
            keep.add(id());
            if (settings.predecessor() != null) {
                keep.add(settings.predecessor());
            }
            gone = store.markGoneExcept(keep);
        }
        log.info("cluster - node {} ({}) joined{}{}", id(), settings.identity().describe(),
                clustered() ? " the cluster (lease " + settings.lease().toMillis() / 1000.0 + " s)" : " as the only node",
                settings.predecessor() == null ? "" : "; taking over from " + settings.predecessor());
        return gone;
    }

    /** Renews the lease; false (and the fenced action, once) when this node was judged dead meanwhile. */
    public boolean beat() {
        if (fenced) {
            return false;
        }
        long sent = System.nanoTime();
        if (store.heartbeat(id(), settings.lease())) {
            validUntilNanos = sent + settings.lease().toNanos();
            return true;
        }
        fence();
        return false;
    }

    /**
     * Whether this node still holds its lease: by the monotonic clock since its last heartbeat, else (after a pause)
     * by one heartbeat now. A node that was never joined (tests driving parts directly) holds it.
     */
    public boolean holdsLease() {
        if (!joined) {
            return true;
        }
        if (fenced) {
            return false;
        }
        if (System.nanoTime() - validUntilNanos < 0) {
            return true;
        }
        try {
            return beat();
        } catch (RuntimeException e) {
            log.warn("cluster - node {} could not renew its lease ({}); it writes nothing until it can", id(), e.toString());
            return false;
        }
    }

    public boolean fenced() {
        return fenced;
    }

    private void fence() {
        synchronized (this) {
            if (fenced) {
                return;
            }
            fenced = true;
        }
        log.error("cluster - node {} was judged dead by another node (its lease ran out; was this process paused?); its sessions "
                + "and turns were taken over, so it writes nothing more and stops", id());
        onFenced.run();
    }

    /**
     * Marks the other nodes that are dead GONE: those whose lease ran out by the database's clock, and those that ran on
     * this host and whose process is gone. Returns the nodes this call marked (another node may have marked some first).
     * (Without clustering, the nodes that are not this one's predecessor were marked when it joined; a node that joins
     * later is this one's successor in a restart, and lives.)
     */
    public List<String> judge() {
        Set<String> gone = new LinkedHashSet<>();
        for (NodeRecord n : store.list(0)) {
            if (n.id().equals(id()) || !n.state().live()) {
                continue;
            }
            if (settings.identity().sameHostProcessGone(n.processKey()) && store.markGone(n.id(), false)) {
                gone.add(n.id());
                log.warn("cluster - node {} ({}) is gone: its process has ended", n.id(), n.describe());
            }
        }
        for (NodeRecord n : store.expired()) {
            if (!n.id().equals(id()) && store.markGone(n.id(), true)) {
                gone.add(n.id());
                log.warn("cluster - node {} ({}) is gone: its lease ran out at {} by the database's clock (last heartbeat {})", n.id(),
                        n.describe(), n.expiresAt(), n.heartbeatAt());
            }
        }
        return new ArrayList<>(gone);
    }

    /** The nodes that are not GONE now (this one included while it lives). */
    public Set<String> live() {
        Set<String> ids = new HashSet<>();
        for (NodeRecord n : store.list(0)) {
            if (n.state().live()) {
                ids.add(n.id());
            }
        }
        return ids;
    }

    /** Whether the turn or session owner {@code node} counts as alive: this node, or a node not GONE; null is nobody. */
    public boolean isLive(String node, Set<String> live) {
        return node != null && (node.equals(id()) || live.contains(node));
    }

    /** This node stops taking new work (a restart hands it over). */
    public void draining() {
        if (joined && store.move(id(), NodeState.RUNNING, NodeState.DRAINING)) {
            log.info("cluster - node {} is draining: it takes no new work", id());
        }
    }

    /** This node has stopped: it is GONE. */
    public void leave() {
        if (joined && !fenced) {
            store.markGone(id(), false);
            log.info("cluster - node {} left", id());
        }
    }

    /** The registry, for listings. */
    public NodeStore store() {
        return store;
    }

    /** How long a node's lease lasts. */
    public Duration lease() {
        return settings.lease();
    }
}
