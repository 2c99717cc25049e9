package dev.herald.platforms.weixin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Backoff;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The getupdates loop: long-poll with the cursor, hand each user message to the gateway, and only after
 * the whole batch was accepted move the cursor (in memory and on disk). A batch that fails halfway is
 * asked for again with the old cursor; messages already stored come back as duplicates and are dropped
 * by the gateway. A client-side timeout of a long poll is a normal empty answer.
 *
 * <p>One writer: only this thread changes the cursor and the reported connection state.
 */
final class WeixinPoller implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(WeixinPoller.class);

    /** How the first poll went: start() waits for it. */
    enum First {
        CONNECTED,
        REJECTED,
        FAILING
    }

    private final Platform platform;
    private final ILinkApi api;
    private final WeixinState state;
    private final InboundSink sink;
    private final WeixinSettings settings;
    private final Clock clock;
    private final Backoff backoff;
    private final CompletableFuture<First> first = new CompletableFuture<>();
    private final Object lock = new Object();
    private volatile boolean running = true;
    private boolean accepting;
    private ConnectionState reported = ConnectionState.CONNECTING;
    private Thread thread;

    WeixinPoller(Platform platform, ILinkApi api, WeixinState state, InboundSink sink, WeixinSettings settings, Clock clock) {
        this.platform = platform;
        this.api = api;
        this.state = state;
        this.sink = sink;
        this.settings = settings;
        this.clock = clock;
        this.backoff = new Backoff(settings.reconnectFirst(), settings.reconnectMax());
    }

    CompletableFuture<First> start() {
        thread = Thread.ofVirtual().name(platform + "-poller").start(this);
        return first;
    }

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
        boolean firstPoll = true;
        while (running) {
            Duration wait = firstPoll ? settings.firstPollWait() : settings.pollWait();
            firstPoll = false;
            long t0 = System.nanoTime();
            try {
                ILinkApi.Answer a = api.getUpdates(state.cursor(), wait);
                if (a.unauthorized()) {
                    first.complete(First.REJECTED);
                    failed("the bot token was rejected (HTTP " + a.status() + ")");
                    continue;
                }
                if (!a.ok()) {
                    failed(a.sessionExpired() ? a.problem() + " (login session expired; scan the iLink QR code again)" : a.problem());
                    continue;
                }
                connected();
                int handled = handle(a);
                if (handled == 0 && Duration.ofNanos(System.nanoTime() - t0).compareTo(settings.idlePollDelay()) < 0) {
                    pause(settings.idlePollDelay());
                }
            } catch (HttpTimeoutException e) {
                connected();
            } catch (IOException e) {
                if (running) {
                    failed(api.describe(e));
                }
            } catch (RuntimeException e) {
                if (running) {
                    log.error("{} - poll loop error; retrying", platform, e);
                    failed(e.getClass().getSimpleName());
                }
            }
        }
        first.complete(First.FAILING);
    }

    /** Delivers a batch; acknowledges it (moves the cursor) only when every message was accepted. */
    private int handle(ILinkApi.Answer a) throws IOException {
        int handled = 0;
        for (JsonNode m : a.body().path("msgs")) {
            ILinkApi.Inbound in = ILinkApi.inbound(m);
            if (in == null) {
                continue;
            }
            if (in.text().isBlank()) {
                log.info("{} - message {} from user {} has no text ({} media item(s)); media is not supported yet, skipped",
                        platform, in.messageId(), in.fromUser(), in.otherItems());
                continue;
            }
            state.rememberToken(in.fromUser(), in.contextToken());
            if (!deliver(in)) {
                return handled;
            }
            handled++;
        }
        state.acknowledge(ILinkApi.nextCursor(a, state.cursor()));
        return handled;
    }

    private boolean deliver(ILinkApi.Inbound in) {
        SessionSource source = SessionSource.dm(platform, in.fromUser(), in.fromUser());
        MessageEvent event = new MessageEvent(UUID.randomUUID().toString(), source, in.text(),
                in.messageId() == null ? null : in.fromUser() + ":" + in.messageId(), null, List.of(), MessageEvent.Origin.USER,
                clock.instant());
        synchronized (lock) {
            if (!running) {
                return false;
            }
            accepting = true;
        }
        try {
            if (sink.accept(event) == Admission.REJECTED_STOPPING) {
                running = false;
                return false;
            }
            return true;
        } catch (RuntimeException e) {
            log.warn("{} - message {} could not be stored ({}); the batch is not acknowledged and will be read again",
                    platform, in.messageId(), e.toString());
            failed("the gateway could not store a message");
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
        first.complete(First.CONNECTED);
        if (reported != ConnectionState.CONNECTED) {
            reported = ConnectionState.CONNECTED;
            sink.connectionChanged(platform, ConnectionState.CONNECTED, "polling");
        }
    }

    private void failed(String problem) {
        first.complete(First.FAILING);
        Duration wait = backoff.next();
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
