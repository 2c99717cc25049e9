package dev.herald.platforms.weixin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.retry.Backoff;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.platforms.common.LongPoll;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Weixin's side of the getupdates loop ({@link LongPoll} runs it): long-poll with the cursor, hand each
 * user message to the gateway, and only after the whole batch was accepted move the cursor (in memory and
 * on disk). A batch that fails halfway is asked for again with the old cursor; messages already stored
 * come back as duplicates and are dropped by the gateway. A client-side timeout of a long poll is a
 * normal empty answer.
 *
 * <p>One writer: only the loop's thread calls this class and changes the cursor.
 */
final class WeixinPoller implements LongPoll.Source<WeixinMessages.Inbound> {
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
    private final WeixinSettings.Timing timing;
    private final WeixinEvents events;
    private final LongPoll<WeixinMessages.Inbound> loop;
    private final CompletableFuture<First> first = new CompletableFuture<>();
    private boolean firstPoll = true;
    /** The cursor after the batch being handed over; null when the poll timed out (nothing to move past). */
    private String nextCursor;

    WeixinPoller(Platform platform, ILinkApi api, WeixinState state, InboundSink sink, WeixinSettings.Timing timing, WeixinEvents events) {
        this.platform = platform;
        this.api = api;
        this.state = state;
        this.timing = timing;
        this.events = events;
        this.loop = new LongPoll<>(platform, this, sink, new Backoff(timing.reconnectFirst(), timing.reconnectMax()),
                timing.idlePollDelay(), ConnectionState.CONNECTING, "polling");
    }

    CompletableFuture<First> start() {
        loop.firstPoll().thenAccept(ok -> first.complete(ok ? First.CONNECTED : First.FAILING));
        loop.start();
        return first;
    }

    void stop() {
        loop.stop();
    }

    @Override
    public LongPoll.Poll<WeixinMessages.Inbound> poll() throws IOException {
        Duration wait = firstPoll ? timing.firstPollWait() : timing.pollWait();
        firstPoll = false;
        ILinkApi.Answer a;
        try {
            a = api.getUpdates(state.cursor(), wait);
        } catch (HttpTimeoutException e) {
            nextCursor = null;
            return new LongPoll.Batch<>(List.of());
        }
        if (a.unauthorized()) {
            first.complete(First.REJECTED);
            return new LongPoll.Failed<>("the bot token was rejected (HTTP " + a.status() + ")", null);
        }
        if (!a.ok()) {
            return new LongPoll.Failed<>(a.sessionExpired() ? a.problem() + " (login session expired; scan the iLink QR code again)"
                    : a.problem(), null);
        }
        List<WeixinMessages.Inbound> batch = new ArrayList<>();
        for (JsonNode m : a.body().path("msgs")) {
            WeixinMessages.Inbound in = WeixinMessages.inbound(m);
            if (in != null) {
                batch.add(in);
            }
        }
        nextCursor = ILinkApi.nextCursor(a, state.cursor());
        return new LongPoll.Batch<>(batch);
    }

    @Override
    public Optional<MessageEvent> event(WeixinMessages.Inbound in) {
        return events.event(in);
    }

    /** Moves the cursor only when every message of the batch was accepted. */
    @Override
    public void acknowledge(List<WeixinMessages.Inbound> batch, int accepted) throws IOException {
        if (accepted == batch.size() && nextCursor != null) {
            state.acknowledge(nextCursor);
        }
    }

    @Override
    public String describe(IOException e) {
        return api.describe(e);
    }

    @Override
    public String notStored(WeixinMessages.Inbound in, RuntimeException e) {
        log.warn("{} - message {} could not be stored ({}); the batch is not acknowledged and will be read again",
                platform, in.messageId(), e.toString());
        return "the gateway could not store a message";
    }
}
