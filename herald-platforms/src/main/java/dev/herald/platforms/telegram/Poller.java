package dev.herald.platforms.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Backoff;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The getUpdates loop: long-poll, hand each update to the gateway, and only then move the offset past it.
 *
 * <p>Acknowledgement: Telegram forgets updates below the {@code offset} of the next getUpdates call, so an
 * update is acknowledged by the poll after the one that returned it, and only once {@code sink.accept}
 * returned for it. An update whose accept threw, or that the gateway rejected while stopping, is not
 * acknowledged: the loop (or the next process) reads it again, and the gateway's durable dedupe drops it
 * if it had been stored. Failures back off with the core {@link Backoff} and are reported as
 * {@code BACKING_OFF}; the next good poll reports {@code CONNECTED}.
 *
 * <p>One writer: only the poller thread changes the offset and the reported state.
 */
final class Poller implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Poller.class);

    private final Platform platform;
    private final BotApi api;
    private final Normaliser normaliser;
    private final InboundSink sink;
    private final TelegramSettings settings;
    private final Clock clock;
    private final Backoff backoff;
    private final Object lock = new Object();
    private volatile boolean running = true;
    private boolean accepting;
    private boolean identified;
    private ConnectionState reported;
    private long offset;
    private Thread thread;

    Poller(Platform platform, BotApi api, Normaliser normaliser, InboundSink sink, TelegramSettings settings, Clock clock,
            boolean identified) {
        this.platform = platform;
        this.api = api;
        this.normaliser = normaliser;
        this.sink = sink;
        this.settings = settings;
        this.clock = clock;
        this.backoff = new Backoff(settings.reconnectFirst(), settings.reconnectMax());
        this.identified = identified;
        this.reported = identified ? ConnectionState.CONNECTED : ConnectionState.BACKING_OFF;
    }

    Poller start() {
        thread = Thread.ofVirtual().name(platform + "-poller").start(this);
        return this;
    }

    /** Stops polling; an accept in progress is allowed to finish (it is never interrupted). */
    void stop() {
        synchronized (lock) {
            running = false;
            if (thread != null && !accepting) {
                thread.interrupt();
            }
        }
        if (thread != null) {
            try {
                thread.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        while (running) {
            try {
                if (!identified && !identify()) {
                    continue;
                }
                pollOnce();
            } catch (IOException e) {
                if (running) {
                    failed(api.describe(e), null);
                }
            } catch (RuntimeException e) {
                if (running) {
                    log.error("{} - poll loop error; retrying", platform, e);
                    failed(e.getClass().getSimpleName(), null);
                }
            }
        }
    }

    private boolean identify() throws IOException {
        BotApi.Answer me = api.getMe();
        if (!me.ok()) {
            failed(me.unauthorized() ? "the bot token was rejected (HTTP " + me.status() + ")" : me.problem(), me.retryAfter());
            return false;
        }
        normaliser.botUsername(me.result().path("username").asText(null));
        identified = true;
        return true;
    }

    private void pollOnce() throws IOException {
        long t0 = System.nanoTime();
        BotApi.Answer answer = api.getUpdates(offset, settings.pollWait());
        if (!answer.ok()) {
            failed(answer.status() == 409 ? answer.problem() + " (another poller or a webhook holds this bot)" : answer.problem(),
                    answer.retryAfter());
            return;
        }
        connected();
        int handled = 0;
        for (JsonNode update : answer.result()) {
            long id = update.path("update_id").asLong(-1);
            if (id < 0 || id < offset) {
                continue;
            }
            if (!deliver(update)) {
                return;
            }
            offset = id + 1;
            handled++;
        }
        if (handled == 0 && Duration.ofNanos(System.nanoTime() - t0).compareTo(settings.idlePollDelay()) < 0) {
            pause(settings.idlePollDelay());
        }
    }

    /** Hands one update to the gateway; false when it must not be acknowledged. */
    private boolean deliver(JsonNode update) {
        Optional<MessageEvent> event = normaliser.event(update, clock.instant());
        if (event.isEmpty()) {
            return true;
        }
        synchronized (lock) {
            if (!running) {
                return false;
            }
            accepting = true;
        }
        try {
            Admission a = sink.accept(event.get());
            if (a == Admission.REJECTED_STOPPING) {
                running = false;
                return false;
            }
            return true;
        } catch (RuntimeException e) {
            log.warn("{} - update {} could not be stored ({}); not acknowledged, it will be read again",
                    platform, update.path("update_id").asLong(), e.toString());
            failed("the gateway could not store an update", null);
            return false;
        } finally {
            synchronized (lock) {
                accepting = false;
            }
            Thread.interrupted();
        }
    }

    private void connected() {
        backoff.reset();
        if (reported != ConnectionState.CONNECTED) {
            reported = ConnectionState.CONNECTED;
            sink.connectionChanged(platform, ConnectionState.CONNECTED, "polling again");
        }
    }

    private void failed(String problem, Duration retryAfter) {
        Duration wait = backoff.next(retryAfter);
        if (reported != ConnectionState.BACKING_OFF) {
            reported = ConnectionState.BACKING_OFF;
            sink.connectionChanged(platform, ConnectionState.BACKING_OFF, problem);
        }
        log.warn("{} - poll failed ({}); attempt {}, retrying in {} ms", platform, problem, backoff.attempts(), wait.toMillis());
        pause(wait);
    }

    private void pause(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
