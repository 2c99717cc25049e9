package dev.herald.platforms.slack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slack as a Herald platform ({@code slack}): Socket Mode for events ({@link SocketModeClient}), the Web API
 * for sends ({@link SlackWebApi}), normalisation at the edge ({@link SlackMessages}).
 *
 * <p>Acknowledgement: an {@code events_api} envelope is acknowledged only after {@link InboundSink#accept}
 * returned, i.e. after the message is stored (or refused, answered, or found to be a duplicate). Storing
 * takes milliseconds; should it ever take longer than Slack's 3-second window, Slack redelivers the
 * envelope (with {@code retry_attempt} &gt; 0), the redelivery carries the same channel and {@code ts}, and
 * the gateway's durable dedupe drops it, so a late ack costs a duplicate delivery, never a second turn. An
 * envelope refused because Herald is stopping is not acknowledged, so that Slack redelivers it, possibly
 * to the restarted process. Envelopes Herald does not handle (slash commands, other interactivity) and messages
 * it ignores are acknowledged at once.
 *
 * <p>Approval questions carry Block Kit buttons, whose presses ({@code interactive} envelopes) are answered once by
 * someone the gateway lets answer ({@link SlackPresses}). With {@code streaming} on, a reply is shown while it is written
 * in one message updated at most once per second ({@link EditedDrafts}; {@code chat.update} is Tier 3), which the
 * final reply then replaces.
 *
 * <p>Replies: {@code chat.postMessage} into the message's thread (see {@link SlackMessages} for where
 * threads come from), with {@code &}, {@code <} and {@code >} escaped as Slack requires (the model's
 * Markdown is sent as it is; Slack's mrkdwn shows code blocks, most of the rest reads as plain text).
 * Slack has no typing indicator for bots and no reply-to besides threads.
 */
public final class SlackAdapter implements PlatformAdapter, dev.herald.core.platform.MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(SlackAdapter.class);

    public static final Platform PLATFORM = Platform.of("slack");
    /** Slack truncates a message's text past 40,000 characters; Herald splits below that with a margin. */
    public static final int MAX_TEXT = 39_000;
    /**
     * The largest file Herald shares on Slack. Slack takes up to 1 GB; the upload is held in memory while it is sent, so
     * Herald stops at 100 MiB.
     */
    public static final long MAX_FILE_BYTES = 100L * 1024 * 1024;
    private static final TextFormat FORMAT = new TextFormat("slack-mrkdwn", text -> SlackMrkdwn.render(text).length());
    /** A draft shows at most this much of a reply being written (the final reply is split as usual). */
    private static final int DRAFT_VIEW = 12_000;

    private final SlackSettings settings;
    private final SlackSettings.Timing timing;
    private final HttpClient http;
    private final dev.herald.platforms.common.FileDownload files;
    private final SlackWebApi web;
    private final SlackMessages messages;
    private final SocketModeClient socket;
    private final FirstAttempt firstAttempt = new FirstAttempt();
    private volatile InboundSink sink;
    private volatile SlackWebApi.Identity identity;
    private final Capabilities capabilities;
    private final SlackPresses presses;
    private final EditedDrafts drafts;

    /**
     * An adapter for enabled, validated {@code settings}, paced by {@code timing}, keeping the button presses it answered
     * in {@code state} (the store's, so that a press is answered once across restarts and nodes).
     */
    public SlackAdapter(SlackSettings settings, SlackSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        ObjectMapper json = new ObjectMapper();
        this.http = HttpClient.newBuilder().connectTimeout(timing.connectTimeout()).build();
        java.util.Set<String> fileHosts = new java.util.HashSet<>(java.util.Set.of("files.slack.com"));
        fileHosts.addAll(dev.herald.platforms.common.FileDownload.hostsOf(settings.apiUri())); // a self-hosted proxy, or a test's fake
        this.files = new dev.herald.platforms.common.FileDownload("slack", fileHosts, timing.connectTimeout());
        this.web = new SlackWebApi(settings, timing, http, json);
        this.messages = new SlackMessages(settings, clock);
        this.socket = new SocketModeClient(timing, web, http, json, new Events());
        this.presses = new SlackPresses(web, clock, json, Objects.requireNonNull(state, "state"));
        this.drafts = new EditedDrafts(new Drafts(), timing.editInterval(), DRAFT_VIEW);
        // Slack cuts text at its length as sent, mrkdwn and escapes included; one Socket Mode connection per app; no typing
        // indicator for bots; approval questions have buttons
        this.capabilities = new Capabilities(true, false, true, true, settings.streaming(), true, false, false, MAX_TEXT, FORMAT,
                Capabilities.Delivery.SINGLE_CONNECTION).withFiles(MAX_FILE_BYTES, false);
    }

    /** An adapter that keeps its button presses in memory only (nothing survives it): for tools and tests without a store. */
    public SlackAdapter(SlackSettings settings, SlackSettings.Timing timing, Clock clock) {
        this(settings, timing, clock, PressLedger.memoryState());
    }

    /** An adapter with the production {@link SlackSettings.Timing}, keeping its presses in memory only (for tools and tests). */
    public SlackAdapter(SlackSettings settings, Clock clock) {
        this(settings, SlackSettings.Timing.defaults(), clock);
    }

    /** An adapter with the production {@link SlackSettings.Timing}, keeping its presses in {@code state}. */
    public SlackAdapter(SlackSettings settings, Clock clock, PlatformState state) {
        this(settings, SlackSettings.Timing.defaults(), clock, state);
    }

    /** The operator's settings for single chats ({@code platforms.slack.channels}): a channel's require_mention. */
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
        log.info("slack - connecting ({})", settings);
        socket.start();
        if (!firstAttempt.await(timing.connectTimeout().multipliedBy(3), this::close)) {
            log.warn("slack - not connected yet; still connecting in the background");
        }
    }

    @Override
    public SendResult send(OutboundMessage message) {
        if (message.file() != null) {
            return web.uploadFile(message.target().chatId(), message.target().threadId(), SlackMrkdwn.render(message.text()),
                    message.file(), MAX_FILE_BYTES);
        }
        Optional<SendResult> pressAnswered = presses.answer(message);
        if (pressAnswered.isPresent()) {
            return pressAnswered.get();
        }
        String channel = message.target().chatId();
        String text = SlackMrkdwn.render(message.text());
        if (settings.streaming()) {
            Optional<String> draft = drafts.claim(message);
            if (draft.isPresent()) {
                SendResult edited = web.update(channel, draft.get(), text, null);
                if (edited.success()) {
                    return edited;
                }
                log.info("slack - the streamed draft {} could not take the final reply ({}); sending it as a new message", draft.get(),
                        edited.error());
            }
        }
        return web.postMessage(channel, text, message.target().threadId(), presses.blocks(message, text).orElse(null));
    }

    /** While streaming, the reply's draft, updated as text arrives (Slack has no typing indicator for bots). */
    @Override
    public void progress(dev.herald.core.platform.ChatTarget target, String correlationId, dev.herald.core.platform.StreamEvent event) {
        if (settings.streaming() && event instanceof dev.herald.core.platform.StreamEvent.TextDelta d) {
            drafts.delta(target, correlationId, d.text());
        }
    }

    /** A reply's draft on Slack: a message posted where the reply goes, then updated in place, with a cursor at its end. */
    private final class Drafts implements EditedDrafts.Surface {
        @Override
        public EditedDrafts.Result post(dev.herald.core.platform.ChatTarget target, String textSoFar) {
            SendResult r = web.postMessage(target.chatId(), SlackMrkdwn.render(textSoFar) + EditedDrafts.CURSOR, target.threadId());
            String id = r.messageId();
            return r.success() && id != null ? EditedDrafts.Result.ok(id.substring(id.indexOf(':') + 1)) : result(r);
        }

        @Override
        public EditedDrafts.Result edit(dev.herald.core.platform.ChatTarget target, String ts, String textSoFar) {
            return result(web.update(target.chatId(), ts, SlackMrkdwn.render(textSoFar) + EditedDrafts.CURSOR, null));
        }

        private static EditedDrafts.Result result(SendResult r) {
            if (r.success()) {
                return EditedDrafts.Result.ok(r.messageId());
            }
            return r.retryAfter() != null ? EditedDrafts.Result.limited(r.retryAfter()) : EditedDrafts.Result.FAILED;
        }
    }


    /** A file by its {@code url_private}: Slack serves it to the bot token only, so the token goes with it, to Slack's file host alone. */
    @Override
    public Fetched fetch(dev.herald.core.platform.MessageEvent.MediaRef ref, long maxBytes) throws java.io.IOException {
        return files.get(ref.ref(), java.util.Map.of("Authorization", "Bearer " + settings.botTokenValue()), maxBytes, java.time.Duration.ofSeconds(30));
    }


    /** Closes the Socket Mode connection; replies go over the Web API, which needs none. */
    @Override
    public void stopReceiving() {
        socket.close();
    }

    @Override
    public void close() {
        socket.close();
        http.close();
    }

    /** Handles one envelope on its connection's reader thread; acknowledges it as the class comment says. */
    private void onEnvelope(JsonNode envelope, Runnable ack) {
        String type = envelope.path("type").asText("");
        if ("interactive".equals(type)) {
            if (presses.handle(envelope.path("payload"), sink) == SlackPresses.Outcome.ACK) {
                ack.run();
            }
            return;
        }
        if (!"events_api".equals(type)) {
            ack.run();
            log.debug("slack - {} envelope acknowledged and ignored (Herald handles events_api only)", type);
            return;
        }
        Optional<MessageEvent> event = messages.normalise(envelope.path("payload").path("event"));
        if (event.isEmpty()) {
            ack.run();
            return;
        }
        MessageEvent e = event.get();
        Admission a;
        try {
            a = sink.accept(e);
        } catch (RuntimeException ex) {
            if (dev.herald.core.session.StoreException.isOutage(ex)) {
                log.debug("slack - message {} not taken: the store cannot write; not acknowledged, Slack will redeliver it", e.messageId());
                return;
            }
            log.warn("slack - the gateway failed to accept message {}; not acknowledged, Slack will redeliver it", e.messageId(), ex);
            return;
        }
        if (a == Admission.REJECTED_UNAVAILABLE) {
            log.debug("slack - message {} not taken: the store cannot write; not acknowledged, Slack will redeliver it", e.messageId());
            return;
        }
        if (a == Admission.REJECTED_STOPPING) {
            log.info("slack - message {} arrived while Herald is stopping; not acknowledged, so Slack redelivers it", e.messageId());
            return;
        }
        ack.run();
        int retry = envelope.path("retry_attempt").asInt(0);
        log.debug("slack - message {}: {}{}", e.messageId(), a, retry > 0 ? " (Slack's retry " + retry + ")" : "");
    }

    private final class Events implements SocketModeClient.Handler {
        @Override
        public void beforeConnect() {
            if (identity == null) {
                SlackWebApi.Identity id = web.authTest();
                identity = id;
                messages.self(id.userId(), id.botId());
                log.info("slack - bot user {} in workspace {}", id.userId(), id.team());
            }
        }

        @Override
        public void envelope(JsonNode envelope, Runnable ack) {
            onEnvelope(envelope, ack);
        }

        @Override
        public void connection(ConnectionState state, String detail) {
            sink.connectionChanged(PLATFORM, state, detail);
            firstAttempt.reported(state);
        }

        @Override
        public void failed(String message) {
            sink.connectionChanged(PLATFORM, ConnectionState.STOPPED, message);
            firstAttempt.gaveUp(message);
        }
    }
}
