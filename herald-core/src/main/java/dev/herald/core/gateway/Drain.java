package dev.herald.core.gateway;

import dev.herald.core.continuity.ResumeMarks;
import dev.herald.core.lanes.ActiveTurn;
import dev.herald.core.lanes.SessionLanes;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stop sequence of a gateway that no longer takes turns (spec E1-E4, G3).
 *
 * <p>Design. The one promise that matters is "mark before interrupt" (E1): every session whose turn is still
 * running is resume-pending on disk before anything is cut off, so neither a kill -9 during the drain nor the next
 * start's sweep can lose it. The order is therefore:
 * <ol>
 *   <li><b>Announce</b>: the stop banner goes to active chats and home channels concurrently, each bounded in time;
 *       the drain does not wait for it here, so a hanging platform never delays the marks.</li>
 *   <li><b>Mark</b> every lane whose turn is RUNNING in the store, in one conditional statement per lane (a turn
 *       recording its reply at that moment is either marked first or not at all).</li>
 *   <li><b>Wait</b> up to the drain timeout on the lanes' completion futures (no polling).</li>
 *   <li>If turns still run: mark again (a turn that started meanwhile), <b>count</b> each cut-off lane once for the
 *       stuck-loop rule, <b>interrupt</b> them, wait the interrupt grace, and record as INTERRUPTED any turn that
 *       ignored its interrupt. A turn that only sends its recorded reply is not cut off: the outbox finishes it.</li>
 *   <li><b>Clear</b> the marks this stop set on lanes whose turns ended by themselves: they are not to be resumed.</li>
 *   <li><b>Withdraw</b> this node's turns that never started and whose only reader is a request the closing adapter
 *       answers 503 "retry" (the API server): each is cancelled, so neither another node nor the next start runs a
 *       message its client sends again.</li>
 *   <li>Let the notices finish (up to their bound), close the adapters, and report what was cut off; a stop that cut
 *       nothing off is clean, and the clean-stop marker is written.</li>
 * </ol>
 * Background workers are stopped by the caller before this runs, so nothing else moves turns meanwhile.
 *
 * <p>The node turns DRAINING first: it takes no new work, and the sessions it neither runs nor delivers can be taken
 * by other nodes at once. A handover ({@link StopKind#HANDOVER}: a new process runs already) announces nothing, runs the
 * caller's {@code onHandover} step (the process stops listening, so new requests reach the new process), lets the
 * running turns finish and deliver, and tells only the chats whose turn it cuts off at the drain timeout; the new
 * process resumes those as soon as this node has left.
 *
 * <p>{@link #hurry()} (an operator's second Ctrl-C or SIGTERM) ends every wait at once: the marks of step 2 are
 * already on disk, the still-running turns are marked again, counted and interrupted (within the short interrupt grace), and the
 * notices are not waited for. Only waits are shortened; no step is skipped.
 */
public final class Drain {
    private static final Logger log = LoggerFactory.getLogger(Drain.class);

    private final SessionLanes lanes;
    private final Turns turns;
    private final ResumeMarks marks;
    private final ShutdownNotices notices;
    private final PlatformRegistry platforms;
    private final GatewaySettings settings;
    private final dev.herald.core.cluster.Membership membership;
    private final Runnable onHandover;
    private final java.util.concurrent.atomic.AtomicBoolean handedOver = new java.util.concurrent.atomic.AtomicBoolean();
    private final CompletableFuture<Void> hurried = new CompletableFuture<>();

    Drain(SessionLanes lanes, Turns turns, ResumeMarks marks, ShutdownNotices notices, PlatformRegistry platforms,
            GatewaySettings settings, dev.herald.core.cluster.Membership membership, Runnable onHandover) {
        this.membership = membership;
        this.onHandover = onHandover;
        this.lanes = lanes;
        this.turns = turns;
        this.marks = marks;
        this.notices = notices;
        this.platforms = platforms;
        this.settings = settings;
    }

    /**
     * Runs the handover step once (the process stops listening; requests on its open connections are still served
     * meanwhile). The gateway runs it before it stops taking turns, so that a request that reaches this process while
     * it stops listening is answered, not refused.
     */
    void handOver() {
        if (!handedOver.compareAndSet(false, true)) {
            return;
        }
        try {
            onHandover.run();
        } catch (RuntimeException e) {
            log.warn("gateway - the handover step failed ({}); draining anyway", e.toString());
        }
    }

    /** Ends the drain's waits now (a second stop request); harmless before or after a drain. */
    void hurry() {
        if (hurried.complete(null)) {
            log.warn("gateway - stop requested again during the drain: cutting off the running turns now (they are marked for resume)");
        }
    }

    /** Runs the sequence and returns what it cut off. */
    StopReport run(StopKind kind, boolean requestedInChat) {
        long t0 = System.nanoTime();
        log.info("gateway - {} requested; draining up to {} s", kind.name().toLowerCase(java.util.Locale.ROOT),
                settings.drainTimeout().toSeconds());
        membership.draining();
        if (kind == StopKind.HANDOVER) {
            handOver();
        }
        ShutdownNotices.Sending told = notices.announce(kind, requestedInChat);
        List<SessionKey> marked = new ArrayList<>(markRunning(kind));
        List<SessionKey> cutOff = new ArrayList<>();
        ShutdownNotices.Sending cutOffTold = null;
        if (!awaitLanes(settings.drainTimeout(), true)) {
            List<ActiveTurn> cut = new ArrayList<>();
            cutOff.addAll(cutOffStillRunning(kind, marked, cut));
            if (kind == StopKind.HANDOVER && !cut.isEmpty()) {
                cutOffTold = notices.announceTo(cut, kind);
            }
        }
        for (SessionKey k : new LinkedHashSet<>(marked)) {
            if (lanes.active(k).isEmpty()) {
                marks.clearIfEndedByItself(k);
            }
        }
        told.await(hurried.isDone() ? Duration.ZERO : remaining(t0, settings.noticeTimeout()));
        if (cutOffTold != null) {
            cutOffTold.await(hurried.isDone() ? Duration.ZERO : settings.noticeTimeout());
        }
        withdrawUnstarted();
        closeAdapters();
        StopReport report = new StopReport(kind, cutOff, Duration.ofNanos(System.nanoTime() - t0));
        log.info("gateway - stopped in {} ms ({} turn(s) cut off)", report.took().toMillis(), cutOff.size());
        return report;
    }

    /** The drain timed out: what is still RUNNING is marked again, counted once and interrupted. Returns those lanes. */
    private List<SessionKey> cutOffStillRunning(StopKind kind, List<SessionKey> marked, List<ActiveTurn> cut) {
        List<ActiveTurn> still = lanes.activeTurns();
        if (still.isEmpty()) {
            return List.of();
        }
        // a turn whose reply is recorded is only sending it: it is not cut off (the outbox finishes the delivery)
        List<ActiveTurn> running = still.stream()
                .filter(t -> turns.find(t.turnId()).map(r -> r.state() == TurnState.RUNNING).orElse(false))
                .toList();
        log.warn("gateway - drain timed out after {} s with {} active turn(s); interrupting the {} still running",
                settings.drainTimeout().toSeconds(), still.size(), running.size());
        marked.addAll(markRunning(kind));
        List<SessionKey> cutOff = running.stream().map(ActiveTurn::key).toList();
        cut.addAll(running);
        marks.countCutOff(cutOff);
        for (ActiveTurn t : running) {
            t.interrupt().raise(kind.interruptReason());
        }
        if (!awaitLanes(settings.interruptGrace(), false)) {
            for (ActiveTurn t : lanes.activeTurns()) {
                if (turns.interrupt(t.turnId(), "interrupted")) {
                    log.warn("gateway - turn {} of {} did not end within {} ms of its interrupt; recorded as interrupted",
                            t.turnId(), t.key(), settings.interruptGrace().toMillis());
                }
            }
        }
        return cutOff;
    }

    /** Marks the lanes whose turns still run (E1); returns those this call newly marked. */
    private List<SessionKey> markRunning(StopKind kind) {
        List<SessionKey> newlyMarked = new ArrayList<>();
        for (ActiveTurn t : lanes.activeTurns()) {
            if (marks.markWhileRunning(t.key(), t.turnId(), kind.resumeReason())) {
                newlyMarked.add(t.key());
            }
        }
        return newlyMarked;
    }

    /** Waits until every lane claimed now is handed back, at most {@code max} or until hurried; true when they all were. */
    private boolean awaitLanes(Duration max, boolean hurriable) {
        List<CompletableFuture<Void>> releases = lanes.releases();
        if (releases.isEmpty()) {
            return true;
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new));
        try {
            (hurriable ? CompletableFuture.anyOf(all, hurried) : all).get(Math.max(0, max.toMillis()), TimeUnit.MILLISECONDS);
            return all.isDone();
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true; // lanes complete normally; nothing to report
        }
    }

    private static Duration remaining(long t0, Duration bound) {
        Duration spent = Duration.ofNanos(System.nanoTime() - t0);
        Duration left = bound.minus(spent);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /**
     * This node's turns that never started and whose request the closing adapter answers 503 "retry" (the API server) are
     * withdrawn first, each by one compare-and-set: nobody could receive their replies, and the client sends the message
     * again (with the same request id, which the withdrawal gives back). A turn that starts meanwhile wins the
     * compare-and-set and runs; the lanes are done by now, so none does.
     */
    private void withdrawUnstarted() {
        int withdrawn = 0;
        for (TurnRecord t : turns.inState(TurnState.RECEIVED, 10_000)) {
            if (membership.id().equals(t.ownerNode()) && platforms.withdrawnAtStop(t.source().platform())
                    && turns.withdraw(t.id(), "this node stopped before the turn started; its request is answered 503 (retry)")) {
                withdrawn++;
            }
        }
        if (withdrawn > 0) {
            log.info("gateway - {} waiting API turn(s) withdrawn: their requests are answered 503 and retried by the client", withdrawn);
        }
    }

    void closeAdapters() {
        for (PlatformAdapter a : platforms.all()) {
            try {
                a.close();
            } catch (RuntimeException e) {
                log.warn("{} - close failed: {}", a.platform(), e.toString());
            }
            platforms.setConnection(a.platform(), ConnectionState.STOPPED, "gateway stopped");
        }
    }
}
