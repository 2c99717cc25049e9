package dev.herald.platforms.weixin;

import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.StreamEvent;
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
 * inbound messages (one-to-one and, when the bot is named, group chats: {@link WeixinEvents}), {@code sendmessage} for
 * replies echoing the chat's latest {@code context_token}. Images, voice, files and videos come in and files go out
 * through WeChat's encrypted media CDN ({@link WeixinMedia}); the typing indicator runs while a turn does
 * ({@link WeixinTyping}). No edits, no threads, no voice notes out.
 *
 * <p>Start waits for the first poll (at most {@link WeixinSettings.Timing#firstPollWait()} plus a margin): a
 * rejected token fails start with a message naming the config key; a network failure lets start return
 * with the platform backing off while the poller keeps trying.
 */
public final class WeixinAdapter implements PlatformAdapter {
    public static final Platform PLATFORM = Platform.of("weixin");
    /** A conservative limit per message; longer replies are split by the gateway. */
    public static final int MAX_TEXT = 2000;
    private final WeixinSettings.Timing timing;
    private final Clock clock;
    private final ILinkApi api;
    private final WeixinState state;
    private final WeixinMedia media;
    private final WeixinTyping typing;
    private final WeixinSettings settings;
    /** Typing shown, files up to max_file_bytes; {@code getupdates} keeps one cursor: one poller per bot. */
    private final Capabilities capabilities;
    private volatile WeixinPoller poller;

    /** An adapter whose cursor and context tokens are kept in {@code stateFile} (null: in memory only). */
    public WeixinAdapter(WeixinSettings settings, WeixinSettings.Timing timing, java.nio.file.Path stateFile, Clock clock) {
        this(settings, timing, clock, new WeixinState(stateFile));
    }

    /**
     * An adapter whose cursor and context tokens live in {@code store}, shared by every node of a cluster; the state file
     * an earlier version kept ({@code legacyStateFile}), when it exists, is imported into an empty store once.
     */
    public WeixinAdapter(WeixinSettings settings, WeixinSettings.Timing timing, java.nio.file.Path legacyStateFile, Clock clock,
            dev.herald.core.platform.PlatformState store) {
        this(settings, timing, clock, new WeixinState(store, legacyStateFile));
    }

    private WeixinAdapter(WeixinSettings settings, WeixinSettings.Timing timing, Clock clock, WeixinState state) {
        this.settings = settings;
        this.timing = timing;
        this.clock = clock;
        this.api = new ILinkApi(BaseUrl.of(settings.apiBase()).toString(), settings.tokenValue());
        this.state = state;
        this.media = new WeixinMedia(api, new WeixinCdn(BaseUrl.of(settings.cdnBase()).toString()), state, settings.maxFileBytes());
        this.typing = new WeixinTyping(api, state, clock);
        this.capabilities = new Capabilities(true, true, false, false, false, MAX_TEXT).with(Capabilities.Delivery.SINGLE_CONNECTION)
                .withFiles(settings.maxFileBytes(), false);
    }

    /** Fetches the attachments this adapter received (the agent asks for images a vision model sees, and for voice notes). */
    public MediaFetcher fetcher() {
        return media;
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public void start(InboundSink sink) throws InterruptedException {
        sink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "first poll");
        WeixinEvents events = new WeixinEvents(PLATFORM, state, media, settings.requireMention(), settings.mentionNames(),
                user -> settings.allowAllUsers() || settings.allowedUsers().contains("*") || settings.allowedUsers().contains(user), clock);
        WeixinPoller p = new WeixinPoller(PLATFORM, api, state, sink, timing, events);
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
            if (m.file() != null) {
                return sendFile(chat, m);
            }
            return result(api.sendText(chat, m.text(), state.contextToken(chat)));
        } catch (IOException e) {
            return SendResult.failed("sendmessage: " + api.describe(e), true);
        } finally {
            if (m.isLastPart() && m.correlationId() != null) {
                typing.stop(chat);
            }
        }
    }

    /** The caption first (as a text), then the file: encrypted, uploaded to the CDN and sent as an image, video or file item. */
    private SendResult sendFile(String chat, OutboundMessage m) throws IOException {
        OutboundFile f = m.file();
        String token = state.contextToken(chat);
        if (!m.text().isBlank()) {
            SendResult caption = result(api.sendText(chat, m.text(), token));
            if (!caption.success()) {
                return caption;
            }
        }
        byte[] bytes;
        try {
            bytes = f.read(settings.maxFileBytes());
        } catch (IOException e) {
            return SendResult.failed("weixin - " + e.getMessage(), false);
        }
        try {
            return result(media.send(chat, f, bytes, token));
        } catch (IOException e) {
            return SendResult.failed("weixin - sending " + f.name() + ": " + e.getMessage(), true);
        }
    }

    private static SendResult result(ILinkApi.Answer a) {
        if (a.ok()) {
            String id = a.body().path("msg").path("message_id").asText(a.body().path("message_id").asText(""));
            return SendResult.sent(id.isEmpty() ? null : id);
        }
        return SendResult.failed(a.problem(), a.retryable());
    }

    /** Keeps the typing indicator on while a turn runs (the core refreshes it every few seconds). */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (event instanceof StreamEvent.Typing) {
            typing.show(target.chatId());
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
