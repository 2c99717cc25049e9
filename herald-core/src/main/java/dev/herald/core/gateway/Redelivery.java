package dev.herald.core.gateway;

import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.Platform;
import dev.herald.core.turn.TurnRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background retry of replies whose delivery failed while their platform stayed connected (a
 * platform that reconnects gets its waiting replies at once, from {@link Gateway#connectionChanged}).
 * Every {@code interval} it offers the outbox each connected platform's waiting replies that are due:
 * a reply is first retried one interval after its last failure, then after twice that, and so on up
 * to 30 minutes. A reply nobody tried yet (its turn is about to send it) is left alone for one
 * interval. The outbox's claim keeps a retry and its turn from sending the same reply twice.
 */
final class Redelivery {
    private static final Logger log = LoggerFactory.getLogger(Redelivery.class);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(30);

    private final Outbox outbox;
    private final PlatformRegistry platforms;
    private final Clock clock;
    private final Duration interval;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private Thread thread;

    Redelivery(Outbox outbox, PlatformRegistry platforms, Clock clock, Duration interval) {
        this.outbox = outbox;
        this.platforms = platforms;
        this.clock = clock;
        this.interval = interval;
    }

    synchronized void start() {
        if (thread == null) {
            thread = Thread.ofVirtual().name("herald-redelivery").start(this::loop);
        }
    }

    /** Stops after the current round (a send in progress is not cut off). */
    void stop() {
        stopped.countDown();
    }

    private void loop() {
        try {
            while (!stopped.await(interval.toMillis(), TimeUnit.MILLISECONDS)) {
                try {
                    round();
                } catch (RuntimeException e) {
                    log.warn("outbox - a background redelivery round failed: {}", e.toString());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One pass over the waiting replies of the connected platforms; returns how many went out. */
    int round() {
        Instant now = clock.instant();
        Set<Platform> connected = new HashSet<>();
        platforms.connections().forEach((p, c) -> {
            if (c.state() == ConnectionState.CONNECTED) {
                connected.add(p);
            }
        });
        return outbox.redeliver(t -> stopped.getCount() > 0 && connected.contains(t.source().platform()) && due(t, now));
    }

    boolean due(TurnRecord t, Instant now) {
        Duration wait = t.deliveryAttempts() == 0 ? interval : backoff(t.deliveryAttempts());
        return !now.isBefore(t.updatedAt().plus(wait));
    }

    /** {@code interval * 2^(attempts-1)}, at most {@link #MAX_BACKOFF}. */
    Duration backoff(int attempts) {
        Duration d = interval;
        for (int i = 1; i < attempts && d.compareTo(MAX_BACKOFF) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }
}
