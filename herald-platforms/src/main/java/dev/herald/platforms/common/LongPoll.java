package dev.herald.platforms.common;

import dev.herald.core.platform.Admission;
import dev.herald.core.retry.Backoff;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long-poll loop for a platform that is read by polling (Telegram's getUpdates, Weixin's getupdates):
 * fetch a batch from the platform's {@link Source}, hand each item's event to the gateway in order, then
 * acknowledge what the gateway accepted.
 *
 * <p>An item the source cannot turn into an event (it throws) is logged and passed over like an item without
 * an event: reading it again would fail again, and holding it back would block every item after it.
 *
 * <p>Acknowledgement: the source is told how many items of the batch, from the start, went through
 * ({@code sink.accept} returned, or the item carried no event). An item whose accept threw, or that the
 * gateway refused while stopping, ends the batch there: it and the items after it are not acknowledged,
 * so the platform (or the next process) hands them over again and the gateway's durable dedupe drops any
 * that had been stored.
 *
 * <p>While the gateway's store cannot write ({@link Admission#REJECTED_UNAVAILABLE}, or an accept that threw a store
 * outage), the batch ends there unacknowledged too and the loop polls again after a pause that grows from
 * {@link #STORE_WAIT_FIRST} to {@link #STORE_WAIT_MAX}: the platform hands the same items over until the store takes
 * them. The connection is not reported as failing (it is not), and the store logs the outage itself, once.
 *
 * <p>Failures (a failed poll, a transport error, an item the gateway could not store) back off with the
 * core {@link Backoff}, honouring the platform's retry-after, and are reported once as
 * {@code BACKING_OFF}; the next good poll reports {@code CONNECTED}. A poll that came back empty sooner
 * than {@code idlePollDelay} is followed by that pause, for servers that ignore long-poll timing.
 *
 * <p>Concurrency: one virtual thread runs the loop and alone changes the reported state and calls the
 * source. {@link #stop} never interrupts an accept in progress (the gateway would otherwise see an
 * interrupted store write); it waits for the loop to end. Log lines go to the source's class logger, so
 * each platform's lines keep their own name.
 *
 * @param <T> one item of a batch as the platform returns it
 */
public final class LongPoll<T> {

    /** What one platform's long poll does; the loop does the rest. Called on the loop's thread only. */
    public interface Source<T> {
        /** One long poll: the items to hand over, in order, or why the poll failed. */
        Poll<T> poll() throws IOException;

        /** The gateway's event for {@code item}, or empty when it carries none (it is passed over and acknowledged). */
        Optional<MessageEvent> event(T item);

        /** Acknowledges the first {@code accepted} of {@code items}; fewer than all when the batch ended early. */
        void acknowledge(List<T> items, int accepted) throws IOException;

        /** A transport failure in words, with no secret in them. */
        String describe(IOException e);

        /** The gateway could not store {@code item}: logs it in the platform's words, returns the problem to report. */
        String notStored(T item, RuntimeException e);
    }

    /** What one poll returned. */
    public sealed interface Poll<T> {
    }

    /** The items of a good poll, possibly none. */
    public record Batch<T>(List<T> items) implements Poll<T> {
        public Batch {
            items = List.copyOf(items);
        }
    }

    /** The platform answered with an error; the loop backs off, at least {@code retryAfter} when given. */
    public record Failed<T>(String problem, Duration retryAfter) implements Poll<T> {
    }

    /** The first pause after the store could not take an item, and the longest. */
    static final Duration STORE_WAIT_FIRST = Duration.ofMillis(500);
    static final Duration STORE_WAIT_MAX = Duration.ofSeconds(5);

    private final Platform platform;
    private final Source<T> source;
    private final Backoff storeWait = new Backoff(STORE_WAIT_FIRST, STORE_WAIT_MAX);
    private boolean storeDown; // loop thread only: the store could not take an item of the current batch
    private final InboundSink sink;
    private final Backoff backoff;
    private final Duration idlePollDelay;
    private final String connectedDetail;
    private final Logger log;
    private final CompletableFuture<Boolean> firstPoll = new CompletableFuture<>();
    private final Object lock = new Object();
    private volatile boolean running = true;
    private boolean accepting;
    private ConnectionState reported;
    private Thread thread;

    /**
     * @param reported        the state the platform last reported before the loop starts
     * @param connectedDetail the detail reported with {@code CONNECTED} after a good poll
     */
    public LongPoll(Platform platform, Source<T> source, InboundSink sink, Backoff backoff, Duration idlePollDelay,
            ConnectionState reported, String connectedDetail) {
        this.platform = platform;
        this.source = source;
        this.sink = sink;
        this.backoff = backoff;
        this.idlePollDelay = idlePollDelay;
        this.reported = reported;
        this.connectedDetail = connectedDetail;
        this.log = LoggerFactory.getLogger(source.getClass());
    }

    /** Starts the loop on its own virtual thread. */
    public LongPoll<T> start() {
        thread = Thread.ofVirtual().name(platform + "-poller").start(this::run);
        return this;
    }

    /** Completes with true after the first good poll, false after the first failure or when the loop ended without either. */
    public CompletableFuture<Boolean> firstPoll() {
        return firstPoll;
    }

    /** Stops polling; an accept in progress is allowed to finish (it is never interrupted). */
    public void stop() {
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

    private void run() {
        try {
            while (running) {
                try {
                    pollOnce();
                } catch (IOException e) {
                    if (running) {
                        failed(source.describe(e), null);
                    }
                } catch (RuntimeException e) {
                    if (running) {
                        log.error("{} - poll loop error; retrying", platform, e);
                        failed(e.getClass().getSimpleName(), null);
                    }
                }
            }
        } finally {
            firstPoll.complete(false);
        }
    }

    private void pollOnce() throws IOException {
        long t0 = System.nanoTime();
        switch (source.poll()) {
            case Failed<T> f -> failed(f.problem(), f.retryAfter());
            case Batch<T> b -> {
                connected();
                List<T> items = b.items();
                int accepted = 0;
                storeDown = false;
                while (accepted < items.size() && deliver(items.get(accepted))) {
                    accepted++;
                }
                source.acknowledge(items, accepted);
                if (storeDown) {
                    Duration wait = storeWait.next();
                    log.debug("{} - the store cannot take messages now; {} update(s) left unacknowledged, polled again in {} ms", platform,
                            items.size() - accepted, wait.toMillis());
                    pause(wait);
                    return;
                }
                storeWait.reset();
                if (items.isEmpty() && Duration.ofNanos(System.nanoTime() - t0).compareTo(idlePollDelay) < 0) {
                    pause(idlePollDelay);
                }
            }
        }
    }

    /** Hands one item to the gateway; false when it (and what follows it) must not be acknowledged. */
    private boolean deliver(T item) {
        Optional<MessageEvent> event;
        try {
            event = source.event(item);
        } catch (RuntimeException e) {
            // reading it again would fail again: an unreadable item must not block the ones after it
            log.warn("{} - dropped an update Herald cannot read ({}); it is acknowledged so it does not block the updates after it",
                    platform, e.toString());
            return true;
        }
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
            if (a == Admission.REJECTED_UNAVAILABLE) {
                storeDown = true; // left unacknowledged: the platform hands it over again
                return false;
            }
            return true;
        } catch (RuntimeException e) {
            if (dev.herald.core.session.StoreException.isOutage(e)) {
                storeDown = true;
                return false;
            }
            failed(source.notStored(item, e), null);
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
        firstPoll.complete(true);
        if (reported != ConnectionState.CONNECTED) {
            reported = ConnectionState.CONNECTED;
            sink.connectionChanged(platform, ConnectionState.CONNECTED, connectedDetail);
        }
    }

    private void failed(String problem, Duration retryAfter) {
        firstPoll.complete(false);
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
