package dev.herald.platforms.signal;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformState;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.FirstAttempt;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signal as a Herald platform ({@code signal}) through a signal-cli daemon started with {@code --http}: received
 * messages from its server-sent event stream ({@link SignalEvents}), made into events by {@link SignalEnvelopes};
 * replies, typing and attachment downloads through its JSON-RPC endpoint ({@link SignalRpc}, {@link SignalMedia}).
 *
 * <p>Acknowledgement: signal-cli acknowledges a message to Signal's servers itself when it receives it; Herald can only
 * tell signal-cli where it is in the event stream. The id of the last event Herald is done with (stored, or nothing to
 * store) is kept in the store's platform state and sent as {@code Last-Event-ID} when the stream is opened again, so a
 * signal-cli that keeps recent events hands over what Herald missed while it was away; an event the store could not take
 * is read again by reopening the stream. The store's durable dedupe by {@code <sender>:<timestamp>} drops what comes
 * twice.
 *
 * <p>Sending: {@code send} to the {@code recipient} (a UUID or a number) or the {@code groupId}, the Markdown answer as
 * Signal text with {@code textStyle} ranges, in groups quoting the message it answers ({@code quoteTimestamp},
 * {@code quoteAuthor}), a file as a data URI in {@code attachments}. Signal has no idempotency key: a part whose send
 * was not recorded before a crash is sent again (at least once).
 */
public final class SignalAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(SignalAdapter.class);

    public static final Platform PLATFORM = Platform.of("signal");
    /** Signal shows up to 2,000 characters as a message's text; signal-cli sends a longer text as an attachment. */
    public static final int MAX_TEXT = 2000;
    /** Signal's limit for one attachment. */
    public static final long MAX_FILE_BYTES = 100L * 1024 * 1024;
    /** The platform-state key of the last event id Herald is done with. */
    static final String LAST_EVENT_ID = "last_event_id";
    private static final Capabilities CAPABILITIES = new Capabilities(true, true, false, false, false, MAX_TEXT)
            .with(new TextFormat("signal-text", SignalText::length))
            .with(Capabilities.Delivery.SINGLE_CONNECTION).withFiles(MAX_FILE_BYTES, false);

    private final SignalSettings settings;
    private final SignalSettings.Timing timing;
    private final SignalRpc rpc;
    private final SignalMedia media;
    private final SignalEnvelopes envelopes;
    private final SignalEvents events;
    private final PlatformState state;
    private final FirstAttempt firstAttempt = new FirstAttempt();
    private volatile InboundSink sink;
    private volatile String lastEventId;

    /**
     * An adapter for enabled, validated {@code settings}, paced by {@code timing}, keeping its place in the event stream
     * in {@code state} (null: in memory only).
     */
    public SignalAdapter(SignalSettings settings, SignalSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.state = state;
        this.rpc = new SignalRpc(settings.baseUri(), timing.connectTimeout(), timing.requestTimeout());
        this.media = new SignalMedia(rpc);
        this.envelopes = new SignalEnvelopes(PLATFORM, settings.account(), settings.numbersListed(), settings.requireMention(), clock);
        this.events = new SignalEvents(settings.baseUri(), settings.account(), timing, new Events(), () -> lastEventId);
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
    public void start(InboundSink inboundSink) throws Exception {
        this.sink = Objects.requireNonNull(inboundSink, "sink");
        if (state != null) {
            try {
                lastEventId = state.get(PLATFORM, LAST_EVENT_ID).orElse(null);
            } catch (RuntimeException e) {
                log.warn("signal - the stored event-stream position could not be read ({}); the daemon sends what it kept", e.toString());
            }
        }
        log.info("signal - connecting to the signal-cli daemon ({})", settings);
        sink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "opening the event stream");
        events.start();
        if (!firstAttempt.await(timing.firstConnectWait(), this::close)) {
            log.warn("signal - the event stream is not open after {} ms; still trying in the background", timing.firstConnectWait().toMillis());
        }
    }

    @Override
    public SendResult send(OutboundMessage m) {
        String chat = m.target().chatId();
        boolean group = SignalEnvelopes.isGroup(chat);
        ObjectNode params = target(chat);
        SignalText.Rendered text = SignalText.render(m.text());
        OutboundFile f = m.file();
        if (f != null) {
            byte[] bytes;
            try {
                bytes = f.read(MAX_FILE_BYTES);
            } catch (IOException e) {
                return SendResult.failed("signal - " + e.getMessage(), true); // the next attempt tells the user when it is gone
            }
            params.putArray("attachments").add(SignalMedia.dataUri(f.mimeType(), f.name(), bytes));
        } else if (text.text().isBlank()) {
            return SendResult.failed("signal - an empty message cannot be sent", false);
        }
        params.put("message", text.text());
        if (!text.styles().isEmpty()) {
            ArrayNode styles = params.putArray("textStyle");
            text.wireStyles().forEach(styles::add);
        }
        if (group) {
            SignalEnvelopes.quoteOf(m.replyToMessageId()).ifPresent(q -> params.put("quoteTimestamp", q.timestamp())
                    .put("quoteAuthor", q.author()));
        }
        try {
            SendResult r = SignalRpc.sendResult("send", rpc.call("send", params));
            if (r.success()) {
                log.debug("signal - sent {} characters{} to {}", text.text().length(), f != null ? " and a file" : "", chat);
            } else {
                log.warn("{} (to {})", r.error(), chat);
            }
            return r;
        } catch (IOException e) {
            return SendResult.failed("signal - send: " + rpc.describe(e), true);
        }
    }

    /** The typing indicator while a turn runs ({@code sendTyping}; Signal shows it for about 15 s). */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (!(event instanceof StreamEvent.Typing)) {
            return;
        }
        try {
            SignalRpc.Answer a = rpc.call("sendTyping", target(target.chatId()));
            if (!a.ok()) {
                log.debug("signal - sendTyping to {} refused (error {})", target.chatId(), a.code());
            }
        } catch (IOException e) {
            log.debug("signal - sendTyping to {} failed: {}", target.chatId(), rpc.describe(e));
        }
    }

    /** An attachment's bytes through the daemon ({@code getAttachment}). */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        return media.fetch(ref, maxBytes);
    }

    /** Closes the event stream; sends need none, so replies still go out. */
    @Override
    public void stopReceiving() {
        events.close();
    }

    @Override
    public void close() {
        events.close();
    }

    /** The {@code account} and the chat as {@code recipient} (a person) or {@code groupId}. */
    private ObjectNode target(String chat) {
        ObjectNode p = rpc.params().put("account", settings.account());
        if (SignalEnvelopes.isGroup(chat)) {
            p.put("groupId", chat);
        } else {
            p.putArray("recipient").add(chat);
        }
        return p;
    }

    /** Notes that Herald is done with event {@code id}: in memory, and in the store when it can write. */
    private void done(String id) {
        if (id == null || id.equals(lastEventId)) {
            return;
        }
        lastEventId = id;
        if (state != null) {
            try {
                state.put(PLATFORM, Map.of(LAST_EVENT_ID, id));
            } catch (RuntimeException e) {
                log.debug("signal - the event-stream position was not stored ({}); kept in memory", e.toString());
            }
        }
    }

    private final class Events implements SignalEvents.Handler {
        @Override
        public SignalEvents.Outcome event(String id, String type, String data) {
            if (data == null || !type.equals("receive")) {
                done(id);
                return SignalEvents.Outcome.DONE;
            }
            JsonNode received;
            try {
                received = JsonHttp.JSON.readTree(data);
            } catch (JacksonException e) {
                log.warn("signal - an event of the stream is not JSON ({} bytes); skipped", data.length());
                done(id);
                return SignalEvents.Outcome.DONE;
            }
            Optional<MessageEvent> event;
            try {
                event = envelopes.normalise(received);
            } catch (RuntimeException e) {
                log.warn("signal - an envelope Herald cannot read was skipped ({})", e.getClass().getSimpleName());
                done(id);
                return SignalEvents.Outcome.DONE;
            }
            if (event.isEmpty()) {
                done(id);
                return SignalEvents.Outcome.DONE;
            }
            MessageEvent e = event.get();
            Admission a;
            try {
                a = sink.accept(e);
            } catch (RuntimeException ex) {
                if (!StoreException.isOutage(ex)) {
                    log.warn("signal - the gateway failed to accept message {}; it is not read again", e.messageId(), ex);
                    done(id);
                    return SignalEvents.Outcome.DONE;
                }
                a = Admission.REJECTED_UNAVAILABLE;
            }
            switch (a) {
                case REJECTED_STOPPING -> {
                    log.info("signal - message {} arrived while Herald is stopping; the daemon hands it over again next time", e.messageId());
                    return SignalEvents.Outcome.STOP;
                }
                case REJECTED_UNAVAILABLE -> {
                    log.info("signal - message {} held: the store cannot write now; the event stream is read again from it", e.messageId());
                    return SignalEvents.Outcome.AGAIN;
                }
                default -> {
                    log.debug("signal - message {} in {}: {}", e.messageId(), e.source().chatId(), a);
                    done(id);
                    return SignalEvents.Outcome.DONE;
                }
            }
        }

        @Override
        public void connection(ConnectionState s, String detail) {
            InboundSink k = sink;
            if (k != null) {
                k.connectionChanged(PLATFORM, s, detail);
            }
            if (s == ConnectionState.STOPPED) {
                firstAttempt.gaveUp(detail);
            } else {
                firstAttempt.reported(s);
            }
        }
    }
}
