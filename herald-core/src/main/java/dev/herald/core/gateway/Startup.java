package dev.herald.core.gateway;

import dev.herald.core.cluster.Membership;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.inbound.StartupGate;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionStore;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start does before and while the platforms connect: the turns an unclean stop left RUNNING are cut off
 * as the continuity rules say (spec G2), stuck loops are suspended (E4, G3), messages stored but never run are
 * held behind the start-up gate for replay (F6; a resume turn left waiting is dropped, start-up schedules its own),
 * and the resume turns the connecting platforms schedule are awaited up to the restore bound (F7).
 *
 * <p>Start-up takes only what is dead: the running turns and waiting messages of nodes that are gone (this gateway's
 * previous incarnation included, and turns stored before nodes were recorded), never those of a live node, which
 * runs and answers them itself (another node of a cluster, or the process this one takes over from in a restart).
 */
public final class Startup {
    private static final Logger log = LoggerFactory.getLogger(Startup.class);

    /** What recovery found. */
    record Recovered(List<SessionKey> marked, List<SessionKey> suspended, int held) {
    }

    private final Turns turns;
    private final OrphanedTurns orphans;
    private final SessionStore sessions;
    private final StartupGate gate;
    private final GatewaySettings settings;
    private final GatewayMetrics metrics;
    private final Membership membership;
    private final List<CompletableFuture<Void>> resumes = new ArrayList<>();

    Startup(Turns turns, OrphanedTurns orphans, SessionStore sessions, StartupGate gate, GatewaySettings settings,
            GatewayMetrics metrics, Membership membership) {
        this.membership = membership;
        this.turns = turns;
        this.orphans = orphans;
        this.sessions = sessions;
        this.gate = gate;
        this.settings = settings;
        this.metrics = metrics;
    }

    /** The store's side of a start, before any platform connects. */
    Recovered recover() {
        java.util.Set<String> live = membership.live();
        List<SessionKey> marked = orphans.end(turns.running().stream().filter(t -> dead(t.ownerNode(), live)).toList(),
                "start-up sweep of turns whose node is gone").marked();
        List<SessionKey> stuck = sessions.suspendStuckLoops(settings.stuckLoopThreshold());
        for (SessionKey k : stuck) {
            log.warn("gateway - suspended {}: interrupted by {} stops or crashes in a row (likely a stuck loop); its next message starts fresh",
                    k, settings.stuckLoopThreshold());
        }
        metrics.sessionsSuspended(stuck.size(), SuspendReason.STUCK_LOOP.code());
        int held = 0;
        for (TurnRecord t : turns.inState(TurnState.RECEIVED, 100_000)) {
            if (!dead(t.ownerNode(), live)) {
                continue; // a live node received it and runs it (or hands it over)
            }
            if (t.origin() == MessageEvent.Origin.RESUME) {
                turns.cancel(t.id(), "superseded: start-up schedules its own resume");
                continue;
            }
            gate.hold(t);
            held++;
        }
        if (held > 0) {
            log.info("gateway - {} message(s) received before the last stop were never answered; they run after start-up restore", held);
        }
        return new Recovered(marked, stuck, held);
    }

    /** Whether work owned by {@code node} is dead's: no node, this node's previous incarnation (same id), or not alive. */
    private boolean dead(String node, java.util.Set<String> live) {
        return node == null || node.equals(membership.id()) || !live.contains(node);
    }

    /** Resume turns a platform scheduled while the gateway starts: the gate waits for them. */
    void scheduled(List<CompletableFuture<Void>> turns) {
        synchronized (resumes) {
            resumes.addAll(turns);
        }
    }

    /** Waits for the scheduled resume turns up to the restore bound; true when the bound passed first (F7). */
    boolean awaitResumes() {
        List<CompletableFuture<Void>> tasks;
        synchronized (resumes) {
            tasks = new ArrayList<>(resumes);
        }
        if (tasks.isEmpty()) {
            return false;
        }
        Duration bound = settings.startupRestoreTimeout();
        try {
            CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get(Math.max(0, bound.toMillis()), TimeUnit.MILLISECONDS);
            return false;
        } catch (TimeoutException e) {
            long running = tasks.stream().filter(f -> !f.isDone()).count();
            log.warn("gateway - start-up restore released after {} s with {} resume turn(s) still running; replaying held messages now "
                    + "(their sessions' lanes are claimed, so nothing runs twice)", bound.toSeconds(), running);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        } catch (ExecutionException e) {
            return false;
        }
    }
}
