package dev.herald.core.gateway;

import dev.herald.core.cluster.Membership;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.PlatformAdapter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases of the connections that must be single ({@link dev.herald.core.platform.Capabilities.Delivery#singleConnection}): of all the nodes on one
 * store, the one holding a platform's lease connects to it; the others stand by ({@link ConnectionState#STANDBY}) and
 * try again every takeover round, so one connects within about a second of the holder draining, and within its lease
 * when it dies. A lease counts while its node runs: a draining node's is free at once, and the draining node stops
 * receiving ({@link PlatformAdapter#stopReceiving}) while its own turns still send their replies.
 */
public final class PlatformLeases {
    private static final Logger log = LoggerFactory.getLogger("cluster");

    private final Membership membership;
    private final PlatformRegistry platforms;
    private final Consumer<PlatformAdapter> connect;
    private final Set<String> held = ConcurrentHashMap.newKeySet();

    PlatformLeases(Membership membership, PlatformRegistry platforms, Consumer<PlatformAdapter> connect) {
        this.membership = membership;
        this.platforms = platforms;
        this.connect = connect;
    }

    /** Connects every single-connection platform whose lease this node takes now; the others stand by. */
    synchronized void round() {
        for (PlatformAdapter a : platforms.all()) {
            if (!a.capabilities().delivery().singleConnection() || held.contains(a.platform().id())) {
                continue;
            }
            if (take(a)) {
                held.add(a.platform().id());
                log.info("cluster - node {} holds the {} connection now", membership.id(), a.platform());
                connect.accept(a);
            } else if (platforms.connections().get(a.platform()) == null
                    || platforms.connections().get(a.platform()).state() != ConnectionState.STANDBY) {
                String holder = membership.store().platformHolders().getOrDefault(a.platform().id(), "another node");
                platforms.setConnection(a.platform(), ConnectionState.STANDBY, "node " + holder + " holds the connection");
                log.info("{} - standing by: node {} holds the connection; replies are sent from here all the same", a.platform(), holder);
            }
        }
    }

    private boolean take(PlatformAdapter a) {
        try {
            return membership.store().takePlatform(a.platform().id(), membership.id());
        } catch (RuntimeException e) {
            log.warn("{} - its connection lease could not be taken: {}", a.platform(), e.toString());
            return false;
        }
    }

    /** This node drains: it stops receiving on the connections it holds and gives their leases up. */
    synchronized void release() {
        for (PlatformAdapter a : platforms.all()) {
            if (held.remove(a.platform().id())) {
                try {
                    a.stopReceiving();
                    membership.store().releasePlatform(a.platform().id(), membership.id());
                    log.info("{} - connection given up for another node (this one drains)", a.platform());
                } catch (RuntimeException e) {
                    log.warn("{} - giving up the connection failed: {}", a.platform(), e.toString());
                }
            }
        }
    }
}
