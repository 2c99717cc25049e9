package dev.herald.core.gateway;

import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the turns of claimed lanes on virtual threads: one thread per busy lane, which runs the lane's
 * turns one after another and hands the lane back when none is waiting. While the gateway stops, a
 * lane runs no further turn: the waiting ones stay stored and run after the next start.
 */
final class LaneDriver {
    private static final Logger log = LoggerFactory.getLogger(LaneDriver.class);

    private final SessionLanes lanes;
    private final TurnRunner runner;
    private final BooleanSupplier accepting;
    private final BusyPolicy busyPolicy;

    LaneDriver(SessionLanes lanes, TurnRunner runner, BooleanSupplier accepting, BusyPolicy busyPolicy) {
        this.lanes = lanes;
        this.runner = runner;
        this.accepting = accepting;
        this.busyPolicy = busyPolicy;
    }

    /** Runs {@code turn} now, or queues it behind its lane's running turn (interrupting it under that policy). */
    void dispatch(TurnRecord turn, boolean mayInterrupt) {
        switch (lanes.submit(turn.sessionKey(), turn)) {
            case SessionLanes.Submission.RunNow now -> launch(turn.sessionKey(), turn);
            case SessionLanes.Submission.Queued q -> {
                if (mayInterrupt && busyPolicy == BusyPolicy.INTERRUPT) {
                    q.running().ifPresent(a -> a.interrupt().raise("a new message arrived"));
                }
                log.debug("gateway - turn {} queued behind the running turn of {} (position {})", turn.id(), turn.sessionKey(), q.position());
            }
        }
    }

    /** Runs {@code first} and then the lane's waiting turns; the caller must already own the lane. */
    CompletableFuture<Void> launch(SessionKey key, TurnRecord first) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofVirtual().name("turn-" + key.value()).start(() -> {
            try {
                drive(key, first);
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    /** Like {@link #launch} for a lane claimed before its turn existed; {@code first} supplies it. */
    CompletableFuture<Void> launchClaimed(SessionKey key, java.util.function.Supplier<Optional<TurnRecord>> first) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofVirtual().name("resume-" + key.value()).start(() -> {
            try {
                Optional<TurnRecord> turn;
                try {
                    turn = first.get();
                } catch (RuntimeException e) {
                    log.error("gateway - could not store the resume turn of {}; the session stays resume-pending", key, e);
                    turn = Optional.empty();
                }
                if (turn.isPresent()) {
                    drive(key, turn.get());
                } else {
                    handBack(key);
                }
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    private void drive(SessionKey key, TurnRecord first) {
        TurnRecord turn = first;
        while (turn != null) {
            if (!accepting.getAsBoolean()) {
                int left = lanes.release(key).size();
                log.debug("gateway - lane {} released while stopping; turn {} and {} more stay stored", key, turn.id(), left);
                return;
            }
            runner.run(turn);
            turn = lanes.nextOrRelease(key).orElse(null);
        }
    }

    /** Releases a claimed lane; a turn that queued behind the claim meanwhile is run instead. */
    private void handBack(SessionKey key) {
        Optional<TurnRecord> next = lanes.nextOrRelease(key);
        next.ifPresent(t -> drive(key, t));
    }
}
