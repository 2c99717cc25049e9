package dev.herald.core.recovery;

import dev.herald.core.cluster.Membership;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.retry.Worker;
import dev.herald.core.turn.RunningTurn;
import dev.herald.core.turn.Turns;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's background round in the registry: it renews this node's lease (every third of it), judges which other
 * nodes are dead ({@link Membership#judge}), and takes over what dead nodes left: their running turns end as the
 * continuity rules say ({@link OrphanedTurns}: fresh ones become resume-pending {@code restart_interrupted}), and the
 * {@code afterTakeover} step resumes those sessions and runs their waiting turns. Every taking is a compare-and-set in
 * the store, so of several surviving nodes exactly one takes each turn and each session.
 *
 * <p>A round also starts at once when asked ({@link #wake}). When this node finds it was itself judged dead, the
 * membership's fenced action runs and the rounds end.
 */
public final class Takeover {
    private static final Logger log = LoggerFactory.getLogger("cluster");
    /** How often dead nodes are looked for, at most: takeover follows a lease's end within this. */
    static final Duration MAX_ROUND = Duration.ofSeconds(1);

    private final Membership membership;
    private final Turns turns;
    private final OrphanedTurns orphans;
    private final Runnable afterTakeover;
    private final Worker worker;
    private volatile long lastBeat = System.nanoTime();

    public Takeover(Membership membership, Turns turns, OrphanedTurns orphans, Runnable afterTakeover) {
        this.membership = membership;
        this.turns = turns;
        this.orphans = orphans;
        this.afterTakeover = afterTakeover;
        Duration third = membership.settings().heartbeat();
        this.worker = new Worker("takeover", third.compareTo(MAX_ROUND) < 0 ? third : MAX_ROUND, this::round);
    }

    public void start() {
        lastBeat = System.nanoTime();
        worker.start();
    }

    public void stop(Duration max) {
        worker.stop(max);
    }

    void wake() {
        worker.wake();
    }

    /** One round: beat when due, judge, take over; returns how many running turns of dead nodes it ended. */
    int round() {
        if (membership.fenced()) {
            return 0;
        }
        if (System.nanoTime() - lastBeat >= membership.settings().heartbeat().toNanos()) {
            long t = System.nanoTime();
            if (!membership.beat()) {
                return 0;
            }
            lastBeat = t;
        }
        membership.judge();
        int ended = endTurnsOfDeadNodes();
        if (!worker.stopping()) {
            afterTakeover.run();
        }
        return ended;
    }

    /**
     * RUNNING turns whose node is gone end as the continuity rules say (a turn whose node was never recorded is the
     * start-up sweep's and the watchdog's, which give it a grace period).
     */
    int endTurnsOfDeadNodes() {
        Set<String> live = membership.live();
        List<RunningTurn> orphaned = turns.running().stream()
                .filter(t -> t.ownerNode() != null && !t.ownerNode().equals(membership.id()) && !live.contains(t.ownerNode()))
                .toList();
        if (orphaned.isEmpty()) {
            return 0;
        }
        int ended = orphans.end(orphaned, "takeover of turns of nodes that are gone").interrupted().size();
        if (ended > 0) {
            log.info("cluster - node {} took over {} running turn(s) of nodes that are gone", membership.id(), ended);
        }
        return ended;
    }
}
