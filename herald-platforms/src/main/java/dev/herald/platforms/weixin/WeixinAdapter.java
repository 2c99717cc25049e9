package dev.herald.platforms.weixin;

import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.BaseUrl;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Personal WeChat through the iLink bot API: long-polled {@code getupdates} with a persisted cursor for
 * inbound direct messages, {@code sendmessage} for text replies echoing the chat's latest
 * {@code context_token}. Text only: inbound media is skipped with a log line, and nothing but text is
 * sent (no typing indicator, no edits, no threads).
 *
 * <p>Start waits for the first poll (at most {@link WeixinSettings.Timing#firstPollWait()} plus a margin): a
 * rejected token fails start with a message naming the config key; a network failure lets start return
 * with the platform backing off while the poller keeps trying.
 */
public final class WeixinAdapter implements PlatformAdapter {
    public static final Platform PLATFORM = Platform.of("weixin");
    /** A conservative limit per message; longer replies are split by the gateway. */
    public static final int MAX_TEXT = 2000;
    /** Text as written; {@code getupdates} keeps one cursor: one poller per bot. */
    private static final Capabilities CAPABILITIES = new Capabilities(true, false, false, false, false, MAX_TEXT)
            .with(Capabilities.Delivery.SINGLE_CONNECTION);

    private final WeixinSettings.Timing timing;
    private final Clock clock;
    private final ILinkApi api;
    private final WeixinState state;
    private volatile WeixinPoller poller;

    /** An adapter whose cursor and context tokens are kept in {@code stateFile} (null: in memory only). */
    public WeixinAdapter(WeixinSettings settings, WeixinSettings.Timing timing, java.nio.file.Path stateFile, Clock clock) {
        this.timing = timing;
        this.clock = clock;
        this.api = new ILinkApi(BaseUrl.of(settings.apiBase()).toString(), settings.tokenValue());
        this.state = new WeixinState(stateFile);
    }

    /**
     * An adapter whose cursor and context tokens live in {@code store}, shared by every node of a cluster; the state file
     * an earlier version kept ({@code legacyStateFile}), when it exists, is imported into an empty store once.
     */
    public WeixinAdapter(WeixinSettings settings, WeixinSettings.Timing timing, java.nio.file.Path legacyStateFile, Clock clock,
            dev.herald.core.platform.PlatformState store) {
        this.timing = timing;
        this.clock = clock;
        this.api = new ILinkApi(BaseUrl.of(settings.apiBase()).toString(), settings.tokenValue());
        this.state = new WeixinState(store, legacyStateFile);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void start(InboundSink sink) throws InterruptedException {
        sink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "first poll");
        WeixinPoller p = new WeixinPoller(PLATFORM, api, state, sink, timing, clock);
        poller = p;
        WeixinPoller.First first;
        try {
            first = p.start().get(timing.firstPollWait().toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            first = WeixinPoller.First.FAILING;
        }
        if (first == WeixinPoller.First.REJECTED) {
            close();
            throw new IllegalStateException("weixin - the bot token was rejected (HTTP 401); check platforms.weixin.token");
        }
    }

    @Override
    public SendResult send(OutboundMessage m) {
        String chat = m.target().chatId();
        try {
            ILinkApi.Answer a = api.sendText(chat, m.text(), state.contextToken(chat));
            if (a.ok()) {
                String id = a.body().path("msg").path("message_id").asText(a.body().path("message_id").asText(""));
                return SendResult.sent(id.isEmpty() ? null : id);
            }
            return SendResult.failed(a.problem(), a.retryable());
        } catch (IOException e) {
            return SendResult.failed("sendmessage: " + api.describe(e), true);
        }
    }


    /** Stops polling; {@code sendmessage} needs no poller, so replies still go out. */
    @Override
    public void stopReceiving() {
        WeixinPoller p = poller;
        poller = null;
        if (p != null) {
            p.stop();
        }
    }

    @Override
    public void close() {
        stopReceiving();
    }
}
