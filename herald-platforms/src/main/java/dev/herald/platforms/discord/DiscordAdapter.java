package dev.herald.platforms.discord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.PlatformState;
import dev.herald.platforms.common.EditedDrafts;
import dev.herald.platforms.common.FirstAttempt;
import dev.herald.platforms.common.PressLedger;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discord as a Herald platform ({@code discord}): the Gateway WebSocket for events ({@link DiscordGateway}),
 * REST for sends ({@link DiscordRest}), and normalisation of messages at the edge ({@link DiscordMessages}).
 *
 * <p>Inbound order: the gateway loop hands every dispatch and connection change to one inbound worker (a
 * single virtual thread), which normalises and calls {@link InboundSink#accept} one event at a time in
 * arrival order, so a slow accept (a slash command answered inline) never delays a heartbeat. Discord has
 * no acknowledgement; a message whose accept was cut off by a dropped connection is replayed by RESUME and
 * dropped by the gateway's durable dedupe if it had been stored. Nor does Discord redeliver a message the gateway
 * could not store: while the store cannot write ({@link Admission#REJECTED_UNAVAILABLE}), the inbound worker holds the
 * message and hands it over again with a growing pause (the messages after it wait behind it, in order) until the store
 * takes it or the adapter closes; only a message held at close is lost, and that is logged.
 *
 * <p>Approval questions carry buttons, answered once by someone the gateway lets answer ({@link DiscordPresses}). With
 * {@code streaming} on, a reply is shown while it is written in one message edited at most once per second
 * ({@link EditedDrafts}), which the final reply then replaces.
 *
 * <p>Start-up: {@link #start} returns once the first connection attempt has finished (READY, or a failure
 * that the loop will retry); a final close such as 4004 (bad token) fails start with a message naming the
 * key to fix.
 */
public final class DiscordAdapter implements PlatformAdapter, dev.herald.core.platform.MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(DiscordAdapter.class);

    public static final Platform PLATFORM = Platform.of("discord");
    /** Discord's limit for a message's content. */
    public static final int MAX_TEXT = 2000;
    /** The largest attachment a bot may upload to a server without boosts (10 MiB). */
    public static final long MAX_FILE_BYTES = 10L * 1024 * 1024;
    private static final TextFormat FORMAT = new TextFormat("discord-markdown", text -> DiscordMarkdown.render(text).length());

    private final DiscordSettings settings;
    private final DiscordSettings.Timing timing;
    private final HttpClient http;
    private final dev.herald.platforms.common.FileDownload files;
    private final DiscordRest rest;
    private final ChannelDirectory channels;
    private final DiscordMessages messages;
    private final DiscordGateway gateway;
    private final ExecutorService inbound = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("discord-inbound").factory());
    private final FirstAttempt firstAttempt = new FirstAttempt();
    private final Capabilities capabilities;
    private final DiscordPresses presses;
    private final EditedDrafts drafts;
    private volatile InboundSink sink;

    /**
     * An adapter for enabled, validated {@code settings}, paced by {@code timing}, keeping the button presses it answered
     * in {@code state} (the store's, so that a press is answered once across restarts and nodes).
     */
    public DiscordAdapter(DiscordSettings settings, DiscordSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        ObjectMapper json = new ObjectMapper();
        this.http = HttpClient.newBuilder().connectTimeout(timing.connectTimeout()).build();
        java.util.Set<String> fileHosts = new java.util.HashSet<>(java.util.Set.of("cdn.discordapp.com", "media.discordapp.net"));
        fileHosts.addAll(dev.herald.platforms.common.FileDownload.hostsOf(settings.apiUri())); // a self-hosted proxy, or a test's fake
        this.files = new dev.herald.platforms.common.FileDownload("discord", fileHosts, timing.connectTimeout());
        this.rest = new DiscordRest(settings, timing, http, json);
        this.channels = new ChannelDirectory(rest::channel);
        this.messages = new DiscordMessages(settings, channels, clock);
        this.gateway = new DiscordGateway(settings, timing, http, json, new Events());
        this.presses = new DiscordPresses(rest, channels, clock, json, Objects.requireNonNull(state, "state"));
        this.drafts = new EditedDrafts(new Drafts(), timing.editInterval(), MAX_TEXT - 100);
        // Discord counts its 2,000 characters on the Markdown it receives; its gateway connection is one per shard; a file
        // goes as an attachment (no separate voice-note kind for bots); approval questions have buttons
        this.capabilities = new Capabilities(true, true, true, true, settings.streaming(), true, false, false, MAX_TEXT, FORMAT,
                Capabilities.Delivery.SINGLE_CONNECTION).withFiles(MAX_FILE_BYTES, false);
    }

    /** An adapter that keeps its button presses in memory only (nothing survives it): for tools and tests without a store. */
    public DiscordAdapter(DiscordSettings settings, DiscordSettings.Timing timing, Clock clock) {
        this(settings, timing, clock, PressLedger.memoryState());
    }

    /** An adapter with the production {@link DiscordSettings.Timing}, keeping its presses in memory only (for tools and tests). */
    public DiscordAdapter(DiscordSettings settings, Clock clock) {
        this(settings, DiscordSettings.Timing.defaults(), clock);
    }

    /** An adapter with the production {@link DiscordSettings.Timing}, keeping its presses in {@code state}. */
    public DiscordAdapter(DiscordSettings settings, Clock clock, PlatformState state) {
        this(settings, DiscordSettings.Timing.defaults(), clock, state);
    }

    /** The operator's settings for single chats ({@code platforms.discord.channels}): a channel's require_mention. */
    public void useChannels(dev.herald.core.platform.ChannelOverrides overrides) {
        messages.useChannels(overrides);
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
    public void start(InboundSink inboundSink) throws Exception {
        this.sink = Objects.requireNonNull(inboundSink, "sink");
        log.info("discord - connecting ({})", settings);
        gateway.start();
        if (!firstAttempt.await(timing.readyTimeout(), this::close)) {
            log.warn("discord - not ready after {} ms; still connecting in the background", timing.readyTimeout().toMillis());
        }
    }

    @Override
    public SendResult send(OutboundMessage message) {
        ChatTarget t = message.target();
        OutboundFile f = message.file();
        if (f != null) {
            byte[] bytes;
            try {
                bytes = f.read(MAX_FILE_BYTES);
            } catch (java.io.IOException e) {
                return SendResult.failed("discord - " + e.getMessage(), true); // the next attempt tells the user when it is gone
            }
            return rest.createMessageWithFile(channelOf(t), DiscordMarkdown.render(message.text()), message.replyToMessageId(),
                    message.idempotencyKey(), f.name(), f.mimeType(), bytes);
        }
        Optional<SendResult> pressAnswered = presses.answer(message);
        if (pressAnswered.isPresent()) {
            return pressAnswered.get();
        }
        String text = DiscordMarkdown.render(message.text());
        if (settings.streaming()) {
            Optional<String> draft = drafts.claim(message);
            if (draft.isPresent()) {
                SendResult edited = rest.editMessage(channelOf(t), draft.get(), text, false);
                if (edited.success()) {
                    return edited;
                }
                log.info("discord - the streamed draft {} could not take the final reply ({}); sending it as a new message", draft.get(),
                        edited.error());
            }
        }
        if (DiscordPresses.wantsButtons(message)) {
            return rest.createMessage(channelOf(t), text, message.replyToMessageId(), message.idempotencyKey(), presses.buttons());
        }
        return rest.createMessage(channelOf(t), text, message.replyToMessageId(), message.idempotencyKey());
    }


    /** The typing indicator, and while streaming the reply's draft, edited as text arrives. */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (event instanceof StreamEvent.Typing) {
            rest.typing(channelOf(target));
        } else if (settings.streaming() && event instanceof StreamEvent.TextDelta d) {
            drafts.delta(target, correlationId, d.text());
        }
    }

    /** A reply's draft on Discord: a message posted in the turn's channel, then edited in place, with a cursor at its end. */
    private final class Drafts implements EditedDrafts.Surface {
        @Override
        public EditedDrafts.Result post(ChatTarget target, String textSoFar) {
            return result(rest.createMessage(channelOf(target), view(textSoFar), null, null));
        }

        @Override
        public EditedDrafts.Result edit(ChatTarget target, String messageId, String textSoFar) {
            return result(rest.editMessage(channelOf(target), messageId, view(textSoFar), false));
        }

        private static String view(String textSoFar) {
            String rendered = DiscordMarkdown.render(textSoFar);
            int room = MAX_TEXT - EditedDrafts.CURSOR.length();
            return (rendered.length() > room ? rendered.substring(0, room) : rendered) + EditedDrafts.CURSOR;
        }

        private static EditedDrafts.Result result(SendResult r) {
            if (r.success()) {
                return EditedDrafts.Result.ok(r.messageId());
            }
            return r.retryAfter() != null ? EditedDrafts.Result.limited(r.retryAfter()) : EditedDrafts.Result.FAILED;
        }
    }

    /** An attachment by its CDN URL (Discord serves attachments from its CDN, signed, without credentials), size-capped. */
    @Override
    public Fetched fetch(dev.herald.core.platform.MessageEvent.MediaRef ref, long maxBytes) throws java.io.IOException {
        return files.get(ref.ref(), java.util.Map.of(), maxBytes, java.time.Duration.ofSeconds(30));
    }


    /** Closes the gateway connection; replies go over REST, which needs none. */
    @Override
    public void stopReceiving() {
        gateway.close();
    }

    @Override
    public void close() {
        gateway.close();
        inbound.shutdown();
        try {
            if (!inbound.awaitTermination(2, TimeUnit.SECONDS)) {
                inbound.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        http.close();
    }

    /** A thread is its own channel in Discord: messages for it are posted to the thread's id. */
    private static String channelOf(ChatTarget t) {
        return t.hasThread() ? t.threadId() : t.chatId();
    }

    private void handle(String type, JsonNode d) {
        channels.onDispatch(type, d);
        if (type.equals("INTERACTION_CREATE")) {
            presses.handle(d, sink);
            return;
        }
        if (!type.equals("MESSAGE_CREATE")) {
            return;
        }
        Optional<MessageEvent> event = messages.normalise(d);
        if (event.isEmpty()) {
            return;
        }
        MessageEvent e = event.get();
        try {
            Admission a = acceptHolding(e);
            if (a == null) {
                return;
            }
            if (a == Admission.REJECTED_STOPPING) {
                log.info("discord - message {} in channel {} arrived while Herald is stopping; not taken", e.messageId(), channelOf(e.source().target()));
            } else {
                log.debug("discord - message {} in channel {}: {}", e.messageId(), channelOf(e.source().target()), a);
            }
        } catch (RuntimeException ex) {
            log.warn("discord - the gateway failed to accept message {} in channel {}", e.messageId(), channelOf(e.source().target()), ex);
        }
    }

    /**
     * Hands {@code e} to the gateway, again and again while its store cannot write (Discord does not redeliver); null when
     * the adapter closed while the message was held.
     */
    private Admission acceptHolding(MessageEvent e) {
        dev.herald.core.retry.Backoff wait = null;
        while (true) {
            Admission a;
            try {
                a = sink.accept(e);
            } catch (RuntimeException ex) {
                if (!dev.herald.core.session.StoreException.isOutage(ex)) {
                    throw ex;
                }
                a = Admission.REJECTED_UNAVAILABLE;
            }
            if (a != Admission.REJECTED_UNAVAILABLE) {
                if (wait != null) {
                    log.info("discord - message {} held while the store could not write is stored now ({} tries)", e.messageId(),
                            wait.attempts() + 1);
                }
                return a;
            }
            if (wait == null) {
                wait = new dev.herald.core.retry.Backoff(java.time.Duration.ofMillis(500), java.time.Duration.ofSeconds(5));
                log.info("discord - message {} in channel {} held: the store cannot write now; it is handed over again until it can",
                        e.messageId(), channelOf(e.source().target()));
            }
            try {
                Thread.sleep(wait.next());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                log.warn("discord - message {} in channel {} was never stored: the store could not write until the adapter closed",
                        e.messageId(), channelOf(e.source().target()));
                return null;
            }
        }
    }

    /** The gateway's reports, moved onto the inbound worker so they keep their order and never block the gateway loop. */
    private final class Events implements DiscordGateway.Handler {
        @Override
        public void ready(String selfId, String selfName) {
            messages.self(selfId);
        }

        @Override
        public void dispatch(String type, JsonNode data) {
            submit(() -> handle(type, data));
        }

        @Override
        public void connection(ConnectionState state, String detail) {
            submit(() -> {
                sink.connectionChanged(PLATFORM, state, detail);
                firstAttempt.reported(state);
            });
        }

        @Override
        public void failed(String message) {
            submit(() -> sink.connectionChanged(PLATFORM, ConnectionState.STOPPED, message));
            firstAttempt.gaveUp(message);
        }

        private void submit(Runnable task) {
            try {
                inbound.execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                log.debug("discord - event after close ignored");
            }
        }
    }
}
