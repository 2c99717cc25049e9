package dev.herald.core.gateway;

import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.turn.RunningTurn;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Sweeps, while the gateway runs, turns that are RUNNING in the store but that no live lane of this process
 * runs, once they are older than a grace period: a turn whose failure could not even be recorded (the store
 * was unreachable at that moment) would otherwise keep its lane blocked until the next restart. Each such
 * turn ends as the continuity rules say ({@link OrphanedTurns}). The grace covers the instant between a turn
 * starting in the store and its lane recording it; the store's compare-and-set covers a turn that ends by
 * itself while the sweep looks.
 */
final class Watchdog {
    private final Turns turns;
    private final OrphanedTurns orphans;
    private final SessionLanes lanes;
    private final Clock clock;
    private final Duration grace;
    private final Worker worker;

    Watchdog(Turns turns, OrphanedTurns orphans, SessionLanes lanes, Clock clock, Duration interval, Duration grace) {
        this.turns = turns;
        this.orphans = orphans;
        this.lanes = lanes;
        this.clock = clock;
        this.grace = grace;
        this.worker = new Worker("watchdog", interval, this::sweep);
    }

    void start() {
        worker.start();
    }

    void stop(Duration max) {
        worker.stop(max);
    }

    /** One sweep; returns how many turns it ended. */
    int sweep() {
        Instant cutoff = clock.instant().minus(grace);
        List<RunningTurn> orphaned = turns.running().stream()
                .filter(t -> t.startedAt().isBefore(cutoff))
                .filter(t -> lanes.active(t.key()).map(a -> a.turnId() != t.id()).orElse(true))
                .toList();
        if (orphaned.isEmpty()) {
            return 0;
        }
        return orphans.end(orphaned, "watchdog").interrupted().size();
    }
}
