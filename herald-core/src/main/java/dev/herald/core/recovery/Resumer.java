package dev.herald.core.recovery;

import dev.herald.core.auth.Authorizer;
import dev.herald.core.continuity.Freshness;
import dev.herald.core.lanes.LaneDriver;
import dev.herald.core.lanes.SessionLanes;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resumes interrupted sessions when their platform connects (spec F1-F5, G4, G5).
 *
 * <p>For each resume-pending, unsuspended session of the platform whose reason is one of the gateway's
 * own (restart_timeout, shutdown_timeout, restart_interrupted) and whose mark is fresh: skip it when its
 * lane is taken, re-check that its owner is still authorized (nothing is claimed or stored otherwise),
 * claim its lane synchronously, then store and run one internal turn on a virtual thread. Because the
 * lane is claimed before the turn exists, an inbound message arriving in between queues behind it, and
 * the resume turn runs exactly once.
 *
 * <p>With several nodes on one store, a node also takes the session's lease (one compare-and-set in the store) before
 * it claims the lane, so of all the nodes that see a resume-pending session, one resumes it; a session another live
 * node holds is left to it. While the gateway runs, sessions a node that is gone left resume-pending (its running turns
 * were taken over) are resumed by whichever surviving node takes their lease ({@link #resumeTakenOver}).
 */
public final class Resumer {
    private static final Logger log = LoggerFactory.getLogger(Resumer.class);

    private final Storage storage;
    private final Turns turns;
    private final SessionLanes lanes;
    private final LaneDriver driver;
    private final Authorizer authorizer;
    private final PlatformRegistry platforms;
    private final Freshness freshness;
    private final Clock clock;
    private final GatewayMetrics metrics;
    private final String node;
    private final int stuckLoopThreshold;

    public Resumer(Storage storage, Turns turns, SessionLanes lanes, LaneDriver driver, Authorizer authorizer, PlatformRegistry platforms,
            Freshness freshness, Clock clock, GatewayMetrics metrics, String node, int stuckLoopThreshold) {
        this.node = node;
        this.stuckLoopThreshold = stuckLoopThreshold;
        this.storage = storage;
        this.turns = turns;
        this.lanes = lanes;
        this.driver = driver;
        this.authorizer = authorizer;
        this.platforms = platforms;
        this.freshness = freshness;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** Schedules the platform's resume turns; returns one future per scheduled turn, done when it ends. */
    public List<CompletableFuture<Void>> schedule(Platform platform) {
        long t0 = System.nanoTime();
        List<SessionEntry> candidates;
        try {
            candidates = storage.sessions().listResumePending(Optional.of(platform));
        } catch (RuntimeException e) {
            log.warn("resumer - could not list resume-pending sessions of {}: {}", platform, e.toString());
            return List.of();
        }
        long listed = System.nanoTime();
        Instant now = clock.instant();
        List<SessionEntry> claimed = new ArrayList<>();
        int stale = 0;
        int unauthorized = 0;
        for (SessionEntry e : candidates) {
            if (e.suspended() || e.origin() == null || !e.effectiveResumeReason().autoResumes()) {
                continue;
            }
            if (!freshness.worthResuming(e, now)) {
                stale++;
                continue;
            }
            if (lanes.isClaimed(e.key()) || platforms.adapter(platform).isEmpty()) {
                continue;
            }
            if (!isAuthorized(e)) {
                unauthorized++;
                continue;
            }
            if (!takeLease(e.key())) {
                continue; // another live node holds it and resumes it
            }
            if (lanes.tryClaim(e.key())) {
                claimed.add(e);
            }
        }
        List<CompletableFuture<Void>> scheduled = launch(platform, claimed);
        if (!scheduled.isEmpty() || stale > 0 || unauthorized > 0) {
            log.info("resumer - {}: scheduled {} resume turn(s) in {} ms ({} ms listing; skipped {} stale, {} no longer authorized)",
                    platform, scheduled.size(), (System.nanoTime() - t0) / 1_000_000, (listed - t0) / 1_000_000, stale, unauthorized);
        }
        return scheduled;
    }

    /**
     * Launches one turn per claimed lane. Every lane is claimed before any turn starts, so the claims are
     * not slowed down by the turns competing for the processors.
     */
    private List<CompletableFuture<Void>> launch(Platform platform, List<SessionEntry> claimed) {
        List<CompletableFuture<Void>> scheduled = new ArrayList<>(claimed.size());
        for (SessionEntry e : claimed) {
            metrics.resumeScheduled(platform, e.effectiveResumeReason().code());
            scheduled.add(driver.launch(e.key(),
                    () -> turns.receive(e.key(), MessageEvent.resume(e.origin(), clock.instant(), continued(e.key())))));
        }
        return scheduled;
    }

    /** Resumes one session now if it is resume-pending, unsuspended, authorized and its lane is free. */
    public boolean resumeOne(dev.herald.core.session.SessionKey key) {
        Optional<SessionEntry> found = storage.sessions().find(key);
        if (found.isEmpty()) {
            return false;
        }
        SessionEntry e = found.get();
        if (!e.resumePending() || e.suspended() || e.origin() == null || platforms.adapter(e.origin().platform()).isEmpty()
                || !isAuthorized(e) || !takeLease(key) || !lanes.tryClaim(key)) {
            return false;
        }
        metrics.resumeScheduled(e.origin().platform(), e.effectiveResumeReason().code());
        driver.launch(key, () -> turns.receive(key, MessageEvent.resume(e.origin(), clock.instant(), continued(e.key()))));
        log.info("resumer - {} resumed on request", key);
        return true;
    }

    /**
     * Resumes the sessions that nodes which are gone left resume-pending, whose platform is connected here: each is taken
     * by one surviving node (the lease), authorized and fresh as at start-up. Returns how many this node resumed.
     */
    public int resumeTakenOver() {
        List<dev.herald.core.session.SessionKey> keys = storage.sessions().resumePendingOfGoneNodes(100);
        if (keys.isEmpty()) {
            return 0;
        }
        // the stuck-loop rule, as a start applies it (E4, G3): a session cut off too often in a row starts fresh
        List<dev.herald.core.session.SessionKey> stuck = storage.sessions().suspendStuckLoops(stuckLoopThreshold);
        if (!stuck.isEmpty()) {
            log.warn("resumer - suspended {}: interrupted by {} stops or crashes in a row (likely a stuck loop); its next message "
                    + "starts fresh", stuck, stuckLoopThreshold);
            metrics.sessionsSuspended(stuck.size(), dev.herald.core.session.SuspendReason.STUCK_LOOP.code());
        }
        Instant now = clock.instant();
        int resumed = 0;
        for (dev.herald.core.session.SessionKey key : keys) {
            Optional<SessionEntry> found = storage.sessions().find(key);
            if (found.isEmpty()) {
                continue;
            }
            SessionEntry e = found.get();
            if (e.suspended() || e.origin() == null || !e.effectiveResumeReason().autoResumes() || !freshness.worthResuming(e, now)
                    || lanes.isClaimed(key) || !connected(e.origin().platform()) || !isAuthorized(e) || !takeLease(key)
                    || !lanes.tryClaim(key)) {
                continue;
            }
            metrics.resumeScheduled(e.origin().platform(), e.effectiveResumeReason().code());
            driver.launch(key, () -> turns.receive(key, MessageEvent.resume(e.origin(), clock.instant(), continued(e.key()))));
            resumed++;
        }
        if (resumed > 0) {
            log.info("resumer - resumed {} session(s) whose node is gone", resumed);
        }
        return resumed;
    }

    private boolean connected(Platform platform) {
        var c = platforms.connections().get(platform);
        return platforms.adapter(platform).isPresent() && c != null && c.state() == dev.herald.core.platform.ConnectionState.CONNECTED;
    }

    /** Takes the session's lease for this node; false when another live node holds it. */
    private boolean takeLease(dev.herald.core.session.SessionKey key) {
        try {
            return storage.sessions().takeLease(key, node, false);
        } catch (RuntimeException ex) {
            log.warn("resumer - {}: its lease could not be taken: {}", key, ex.toString());
            return false;
        }
    }

    /**
     * The user message the interrupted turn answered (its newest started turn's), so the resumed answer
     * replies to it like any answer; null when unknown (a lookup failure only loses the quote).
     */
    private String continued(dev.herald.core.session.SessionKey key) {
        try {
            return storage.turns().latestStarted(key).map(dev.herald.core.turn.TurnRecord::answersMessageId).orElse(null);
        } catch (RuntimeException ex) {
            log.debug("resumer - {}: the interrupted turn's message could not be read: {}", key, ex.toString());
            return null;
        }
    }

    private boolean isAuthorized(SessionEntry e) {
        try {
            if (authorizer.isAuthorized(e.origin())) {
                return true;
            }
            log.warn("resumer - skipping auto-resume for {}: its owner is no longer authorized under the current access rules", e.key());
        } catch (RuntimeException ex) {
            log.warn("resumer - skipping auto-resume for {}: the authorization check failed: {}", e.key(), ex.toString());
        }
        return false;
    }
}
