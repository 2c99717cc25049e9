package dev.herald.platforms.telegram;

import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.platforms.common.BaseUrl;
import dev.herald.platforms.common.FileDownload;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Telegram through the Bot API: long polling with {@code getUpdates} for inbound messages,
 * {@code sendMessage} for replies (in the forum topic they belong to, as a reply to the message they
 * answer), {@code editMessageText} for streamed replies, {@code sendChatAction} for typing.
 *
 * <p>Start calls {@code getMe}: a rejected token fails start with a message naming the config key; a
 * network failure lets start return with the platform backing off while the poller keeps trying.
 * Replies are Markdown rewritten as Telegram HTML ({@link TelegramHtml}); when Telegram refuses the
 * entities (HTTP 400 "can't parse entities") the same reply goes again as plain text, so formatting can
 * delay a reply by one call but never lose it.
 */
public final class TelegramAdapter implements PlatformAdapter, MediaFetcher {
    public static final Platform PLATFORM = Platform.of("telegram");
    /** Telegram's limit for one message's text. */
    public static final int MAX_TEXT = 4096;

    /** Telegram counts its limit on the text it shows (after the HTML is parsed), in either form a part may be sent in. */
    private static final TextFormat FORMAT = new TextFormat("telegram-html", TelegramHtml::sendLength);

    private static final Logger log = LoggerFactory.getLogger(TelegramAdapter.class);

    private final TelegramSettings settings;
    private final TelegramSettings.Timing timing;
    private final Clock clock;
    private final BotApi api;
    private final FileDownload files;
    private final Normaliser normaliser;
    private final ApprovalButtons buttons;
    private final StreamDrafts drafts;
    private final AtomicBoolean typingWarned = new AtomicBoolean();
    private volatile Poller poller;

    /** An adapter for enabled, validated {@code settings}, paced by {@code timing}. */
    public TelegramAdapter(TelegramSettings settings, TelegramSettings.Timing timing, Clock clock) {
        this.settings = settings;
        this.timing = timing;
        this.clock = clock;
        this.normaliser = new Normaliser(PLATFORM, settings.requireMention());
        java.net.URI base = BaseUrl.of(settings.apiBase());
        this.api = new BotApi(base.toString(), settings.tokenValue());
        this.files = new FileDownload("telegram", java.util.Set.copyOf(FileDownload.hostsOf(base)), Duration.ofSeconds(10));
        this.drafts = new StreamDrafts(api, timing.editInterval());
        this.buttons = new ApprovalButtons(PLATFORM, api);
    }

    /** An adapter with the production {@link TelegramSettings.Timing}. */
    public TelegramAdapter(TelegramSettings settings, Clock clock) {
        this(settings, TelegramSettings.Timing.defaults(), clock);
    }

    /** The operator's settings for single chats ({@code platforms.telegram.channels.<chat id>}): a group's require_mention. */
    public void useChannels(dev.herald.core.platform.ChannelOverrides overrides) {
        normaliser.useChannels(overrides);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return new Capabilities(true, true, true, true, settings.streaming(), true, true, false, MAX_TEXT, FORMAT,
                Capabilities.Delivery.SINGLE_CONNECTION).withFiles(TelegramFiles.MAX_UPLOAD_BYTES, true);
    }

    @Override
    public void start(InboundSink sink) {
        boolean identified = false;
        try {
            BotApi.Answer me = api.getMe();
            if (me.unauthorized()) {
                throw new IllegalStateException("telegram - the bot token was rejected (HTTP " + me.status()
                        + "); check platforms.telegram.token");
            }
            if (me.ok()) {
                String username = me.result().path("username").asText(null);
                normaliser.bot(me.result());
                identified = true;
                sink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "bot @" + username);
            } else {
                sink.connectionChanged(PLATFORM, ConnectionState.BACKING_OFF, me.problem());
            }
        } catch (IOException e) {
            sink.connectionChanged(PLATFORM, ConnectionState.BACKING_OFF, "getMe failed: " + api.describe(e));
        }
        poller = new Poller(PLATFORM, api, normaliser, buttons, sink, timing, clock, identified).start();
    }

    @Override
    public SendResult send(OutboundMessage m) {
        if (m.file() != null) {
            return TelegramFiles.send(api, m);
        }
        if (settings.streaming()) {
            Optional<SendResult> edited = drafts.finish(m);
            if (edited.isPresent()) {
                return edited.get();
            }
        }
        Optional<SendResult> decided = buttons.finish(m);
        if (decided.isPresent()) {
            return decided.get();
        }
        Object keyboard = ApprovalButtons.keyboardFor(m);
        try {
            String html = TelegramHtml.render(m.text());
            BotApi.Answer a = html.isBlank()
                    ? api.sendMessage(m.target().chatId(), number(m.target().threadId()), m.text(), null, number(m.replyToMessageId()), keyboard)
                    : api.sendMessage(m.target().chatId(), number(m.target().threadId()), html, "HTML", number(m.replyToMessageId()), keyboard);
            if (a.entitiesRefused()) {
                log.info("telegram - {} refused the formatted reply ({}); sending it as plain text", m.target().chatId(), a.problem());
                a = api.sendMessage(m.target().chatId(), number(m.target().threadId()), TelegramHtml.plain(m.text()), null,
                        number(m.replyToMessageId()), keyboard);
            }
            if (a.ok()) {
                String id = a.result().path("message_id").asText(null);
                if (keyboard != null) {
                    buttons.sent(m.target().chatId(), id);
                }
                return SendResult.sent(id);
            }
            if (a.status() == 429) {
                return SendResult.rateLimited(a.problem(), a.retryAfter());
            }
            return SendResult.failed(a.problem(), a.retryable());
        } catch (IOException e) {
            return SendResult.failed("sendMessage: " + api.describe(e), true);
        }
    }


    /** The typing indicator, and while streaming the reply's draft, edited as text arrives. */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (event instanceof StreamEvent.Typing) {
            typing(target);
        } else if (settings.streaming() && event instanceof StreamEvent.TextDelta d) {
            drafts.delta(target, correlationId, d.text());
        }
    }

    private void typing(ChatTarget target) {
        try {
            BotApi.Answer a = api.sendChatAction(target.chatId(), number(target.threadId()), "typing");
            if (!a.ok() && typingWarned.compareAndSet(false, true)) {
                log.info("telegram - typing indicator not shown ({}); carrying on without it", a.problem());
            }
        } catch (IOException e) {
            log.debug("telegram - typing indicator failed: {}", api.describe(e));
        }
    }

    /** A photo or file by its {@code file_id}: {@code getFile}, then the Bot API's file download, size-capped. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws java.io.IOException {
        BotApi.Answer where = api.getFile(ref.ref());
        if (!where.ok()) {
            throw new java.io.IOException("telegram - getFile failed (HTTP " + where.status() + ": " + where.description() + ")");
        }
        long size = where.result().path("file_size").asLong(-1);
        if (size > maxBytes) {
            throw new java.io.IOException("telegram - the file is " + size + " bytes, over the " + maxBytes + "-byte limit");
        }
        String path = where.result().path("file_path").asText("");
        if (path.isEmpty() || path.contains("..")) {
            throw new java.io.IOException("telegram - getFile gave no usable file_path");
        }
        return files.get(api.fileUrl(path), java.util.Map.of(), maxBytes, Duration.ofSeconds(30));
    }


    /** Stops polling; {@code sendMessage} needs no poller, so replies still go out. */
    @Override
    public void stopReceiving() {
        Poller p = poller;
        poller = null;
        if (p != null) {
            p.stop();
        }
    }

    @Override
    public void close() {
        stopReceiving();
    }

    /**
     * The number in a Telegram id: thread ids are numbers, message ids are {@code <chat>:<message>}; null
     * when absent or not numeric.
     */
    static Long number(String id) {
        if (id == null) {
            return null;
        }
        String tail = id.substring(id.lastIndexOf(':') + 1);
        try {
            return Long.parseLong(tail);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
