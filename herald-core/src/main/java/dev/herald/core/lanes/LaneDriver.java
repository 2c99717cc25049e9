package dev.herald.core.lanes;

import dev.herald.core.platform.ChannelOverrides;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the turns of claimed lanes, one virtual thread per busy lane on an executor this driver owns: the thread
 * runs the lane's turns one after another and hands the lane back when none is waiting. While the gateway stops,
 * a lane runs no further turn (the waiting ones stay stored and run after the next start), and {@link #close}
 * waits a bounded time for the lanes' threads.
 */
public final class LaneDriver {
    private static final Logger log = LoggerFactory.getLogger(LaneDriver.class);

    private final SessionLanes lanes;
    private final TurnRunner runner;
    private final BooleanSupplier accepting;
    private final java.util.function.Function<SessionKey, BusyPolicy> busyModes;
    private volatile ChannelOverrides channels = ChannelOverrides.NONE;
    private volatile java.util.function.Function<SessionKey, Optional<BusyPolicy>> chosenModes = key -> Optional.empty();
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-lane-", 0).factory());

    public LaneDriver(SessionLanes lanes, TurnRunner runner, BooleanSupplier accepting, BusyPolicy busyPolicy) {
        this(lanes, runner, accepting, key -> busyPolicy);
    }

    /** @param busyModes what a message does in its chat while a turn runs there (the chat's {@code /busy} mode, else the policy) */
    public LaneDriver(SessionLanes lanes, TurnRunner runner, BooleanSupplier accepting,
            java.util.function.Function<SessionKey, BusyPolicy> busyModes) {
        this.lanes = lanes;
        this.runner = runner;
        this.accepting = accepting;
        this.busyModes = busyModes;
    }

    /**
     * Where a chat finds its channel's busy mode ({@code busy_input}): it comes under the chat's own choice
     * ({@code chosen}, {@code /busy}) and over the gateway's policy.
     */
    public void use(ChannelOverrides source, java.util.function.Function<SessionKey, Optional<BusyPolicy>> chosen) {
        this.channels = java.util.Objects.requireNonNull(source, "source");
        this.chosenModes = java.util.Objects.requireNonNull(chosen, "chosen");
    }

    /**
     * Runs {@code turn} now, or queues it behind its lane's running turn; a message that may interrupt follows its chat's
     * busy mode (interrupts the running turn, or steers it), any other just waits.
     */
    public void dispatch(TurnRecord turn, boolean mayInterrupt) {
        dispatch(turn, mayInterrupt ? busyModeOf(turn) : BusyPolicy.QUEUE);
    }

    /** Runs {@code turn} now, or queues it behind its lane's running turn and then does what {@code busy} says. */
    public void dispatch(TurnRecord turn, BusyPolicy busy) {
        switch (lanes.submit(turn.sessionKey(), turn)) {
            case SessionLanes.Submission.RunNow now -> launch(turn.sessionKey(), () -> Optional.of(turn));
            case SessionLanes.Submission.Queued q -> {
                if (busy == BusyPolicy.INTERRUPT) {
                    q.running().ifPresent(a -> a.interrupt().raise("a new message arrived"));
                } else if (busy == BusyPolicy.STEER && turn.attachments().isEmpty() && lanes.steer(turn.sessionKey(), turn.id())) {
                    log.debug("gateway - turn {} steers the running turn of {}", turn.id(), turn.sessionKey());
                    return; // a message with files waits its turn: the running turn has read its files already
                }
                log.debug("gateway - turn {} queued behind the running turn of {} (position {})", turn.id(), turn.sessionKey(), q.position());
            }
        }
    }

    /** The busy mode of the turn's chat: its own {@code /busy} choice, else its channel's {@code busy_input}, else the gateway's. */
    private BusyPolicy busyModeOf(TurnRecord turn) {
        Optional<BusyPolicy> channel = channels.of(turn.source().platform(), turn.source().chatId()).map(ChannelOverrides.Channel::busyInput)
                .map(name -> BusyPolicy.valueOf(name.toUpperCase(java.util.Locale.ROOT)));
        if (channel.isEmpty()) {
            return busyModes.apply(turn.sessionKey());
        }
        try {
            return chosenModes.apply(turn.sessionKey()).orElse(channel.get());
        } catch (RuntimeException e) {
            log.warn("gateway - could not read the busy mode of {} ({}); using its channel's ({})", turn.sessionKey(), e.toString(),
                    channel.get().code());
            return channel.get();
        }
    }

    /**
     * Runs the lane's first turn, which {@code first} supplies (a resume claims its lane before its turn exists),
     * then the lane's waiting turns; the caller must already own the lane. The future completes when the lane is
     * handed back.
     */
    public CompletableFuture<Void> launch(SessionKey key, Supplier<Optional<TurnRecord>> first) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            threads.execute(() -> {
                Thread.currentThread().setName("turn-" + key.value());
                try {
                    Optional<TurnRecord> turn;
                    try {
                        turn = first.get();
                    } catch (RuntimeException e) {
                        log.error("gateway - could not store the first turn of {}; its lane is handed back", key, e);
                        turn = Optional.empty();
                    }
                    if (turn.isPresent()) {
                        drive(key, turn.get());
                    } else {
                        lanes.nextOrRelease(key).ifPresent(t -> drive(key, t)); // a turn that queued behind the claim meanwhile
                    }
                } finally {
                    done.complete(null);
                }
            });
        } catch (RejectedExecutionException e) {
            int left = lanes.release(key).size();
            log.debug("gateway - lane {} released: the gateway has stopped ({} waiting turn(s) stay stored)", key, left);
            done.complete(null);
        }
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
            lanes.working(key, turn.id());
            runner.run(turn);
            turn = lanes.nextOrRelease(key).orElse(null);
        }
    }

    /** Takes no more lanes and waits up to {@code max} for the lanes' threads; a thread still running then is left to end. */
    public void close(Duration max) {
        threads.shutdown();
        try {
            if (!threads.awaitTermination(Math.max(0, max.toMillis()), TimeUnit.MILLISECONDS)) {
                log.warn("gateway - lane threads still running {} ms after the stop; they end in the background", max.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
