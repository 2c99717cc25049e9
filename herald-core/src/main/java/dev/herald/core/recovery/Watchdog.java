package dev.herald.core.recovery;

import dev.herald.core.cluster.Membership;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.lanes.SessionLanes;
import dev.herald.core.retry.Worker;
import dev.herald.core.turn.RunningTurn;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sweeps, while the gateway runs, for turns that nothing here moves on.
 *
 * <p>Turns that are RUNNING in the store but that no live lane of this process
 * runs, once they are older than a grace period: a turn whose failure could not even be recorded (the store
 * was unreachable at that moment) would otherwise keep its lane blocked until the next restart. Each such
 * turn ends as the continuity rules say ({@link OrphanedTurns}). The grace covers the instant between a turn
 * starting in the store and its lane recording it; the store's compare-and-set covers a turn that ends by
 * itself while the sweep looks. Only this node's turns are its business: turns of other live nodes are theirs, and
 * turns of dead nodes are taken over by {@link Takeover}.
 *
 * <p>Turns that are this node's to start (it received or claimed them) and that have waited longer than the node's lease
 * plus the drain, though no lane of this process holds them: every path that leaves a turn waiting is meant to hand it
 * to a lane or to another node, so one found here is a bug's leftover, and it is dispatched to its lane now (which starts
 * it, or hands it to the node that holds its session) instead of waiting for the next start.
 */
public final class Watchdog {
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);
    private final Turns turns;
    private final OrphanedTurns orphans;
    private final SessionLanes lanes;
    private final Membership membership;
    private final Clock clock;
    private final Duration grace;
    private final Duration maxWait;
    private final java.util.function.Consumer<TurnRecord> dispatch;
    private final Worker worker;

    /**
     * @param maxWait  how long a waiting turn of this node may go without a lane before it is dispatched
     * @param dispatch hands a waiting turn to its lane
     */
    public Watchdog(Turns turns, OrphanedTurns orphans, SessionLanes lanes, Membership membership, Clock clock, Duration interval, Duration grace,
            Duration maxWait, java.util.function.Consumer<TurnRecord> dispatch) {
        this.turns = turns;
        this.orphans = orphans;
        this.lanes = lanes;
        this.membership = membership;
        this.clock = clock;
        this.grace = grace;
        this.maxWait = maxWait;
        this.dispatch = dispatch;
        this.worker = new Worker("watchdog", interval, () -> {
            sweep();
            sweepWaiting();
        });
    }

    public void start() {
        worker.start();
    }

    public void stop(Duration max) {
        worker.stop(max);
    }

    /** One sweep; returns how many turns it ended. */
    int sweep() {
        Instant cutoff = clock.instant().minus(grace);
        List<RunningTurn> orphaned = turns.running().stream()
                .filter(t -> t.ownerNode() == null || membership.id().equals(t.ownerNode()))
                .filter(t -> t.startedAt().isBefore(cutoff))
                .filter(t -> lanes.active(t.key()).map(a -> a.turnId() != t.id()).orElse(true))
                .toList();
        if (orphaned.isEmpty()) {
            return 0;
        }
        return orphans.end(orphaned, "watchdog").interrupted().size();
    }

    /** One sweep of the waiting turns; returns how many it dispatched. */
    int sweepWaiting() {
        Instant cutoff = clock.instant().minus(maxWait);
        List<TurnRecord> stranded = turns.inState(TurnState.RECEIVED, 500).stream()
                .filter(t -> membership.id().equals(t.ownerNode()))
                .filter(t -> t.updatedAt().isBefore(cutoff))
                .filter(t -> !lanes.holds(t.sessionKey(), t.id()))
                .toList();
        for (TurnRecord t : stranded) {
            log.warn("watchdog - turn {} of {} waited {} s with no lane to start it; it goes to its lane now", t.id(), t.sessionKey(),
                    Duration.between(t.updatedAt(), clock.instant()).toSeconds());
            dispatch.accept(t);
        }
        return stranded.size();
    }
}
