package dev.herald.core.outbox;

import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.Platform;
import dev.herald.core.retry.Backoff;
import dev.herald.core.retry.Worker;
import dev.herald.core.turn.TurnRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The background worker that offers the outbox the replies that were recorded but not delivered. Two things
 * wake it: a platform that connects (its waiting replies go out at once, then {@code afterConnect} runs for it,
 * all on this worker's thread and never on the adapter's), and its interval, at which it offers each connected
 * platform's waiting replies that are due: a reply is first retried one interval after its last failure, then
 * after twice that, and so on up to 30 minutes ({@link Backoff}). A reply nobody tried yet (its turn is about to
 * send it) is left alone for one interval. The outbox's claim keeps a retry and its turn from sending the same
 * reply twice.
 */
public final class Redelivery {
    static final Duration MAX_BACKOFF = Duration.ofMinutes(30);

    private final Outbox outbox;
    private final PlatformRegistry platforms;
    private final Clock clock;
    private final Duration interval;
    private final Backoff backoff;
    private final Consumer<Platform> afterConnect;
    private final Set<Platform> connected = ConcurrentHashMap.newKeySet();
    private final Worker worker;

    public Redelivery(Outbox outbox, PlatformRegistry platforms, Clock clock, Duration interval, Consumer<Platform> afterConnect) {
        this.outbox = outbox;
        this.platforms = platforms;
        this.clock = clock;
        this.interval = interval;
        this.backoff = Backoff.exponential(interval.compareTo(MAX_BACKOFF) < 0 ? interval : MAX_BACKOFF, MAX_BACKOFF);
        this.afterConnect = afterConnect;
        this.worker = new Worker("redelivery", interval, this::round);
    }

    public void start() {
        worker.start();
    }

    /** Stops after the current round (a send in progress is not cut off), waiting for it at most {@code max}. */
    public void stop(Duration max) {
        worker.stop(max);
    }

    /** {@code platform} (re)connected: its waiting replies go out at once, on the worker's thread. */
    public void connected(Platform platform) {
        connected.add(platform);
        worker.wake();
    }

    /** One pass: first every platform that connected since the last one, then the due replies of the connected ones. */
    int round() {
        int delivered = 0;
        for (Platform p : Set.copyOf(connected)) {
            connected.remove(p);
            delivered += outbox.redeliver(t -> !worker.stopping() && outbox.destinationOf(t).equals(p));
            if (!worker.stopping()) {
                afterConnect.accept(p);
            }
        }
        Instant now = clock.instant();
        Set<Platform> up = new HashSet<>();
        platforms.connections().forEach((p, c) -> {
            if (c.state() == ConnectionState.CONNECTED || c.state() == ConnectionState.STANDBY) { // a standby node sends all the same
                up.add(p);
            }
        });
        return delivered + outbox.redeliver(t -> !worker.stopping() && up.contains(outbox.destinationOf(t)) && due(t, now));
    }

    boolean due(TurnRecord t, Instant now) {
        Duration wait = t.deliveryAttempts() == 0 ? interval : backoff(t.deliveryAttempts());
        return !now.isBefore(t.updatedAt().plus(wait));
    }

    /** {@code interval * 2^(attempts-1)}, at most {@link #MAX_BACKOFF}. */
    Duration backoff(int attempts) {
        return backoff.delay(attempts);
    }
}
