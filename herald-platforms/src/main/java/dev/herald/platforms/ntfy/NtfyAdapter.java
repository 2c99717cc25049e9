package dev.herald.platforms.ntfy;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformState;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.FirstAttempt;
import dev.herald.platforms.common.PlainDialect;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ntfy topic as a chat ({@code ntfy}): the topic's JSON stream ({@link NtfyStream}, read by {@link NtfyEvents}) brings
 * what people publish, and Herald answers by publishing ({@link NtfyApi}) to the topic or to {@code reply_topic}.
 *
 * <p>Approval questions on an open topic (no credentials configured) carry Approve / Always / Deny action buttons, whose
 * press publishes the command to the topic; on a protected topic the app could not publish without the credentials in
 * the message, so there the commands are typed.
 *
 * <p>Its own messages: every publish carries {@code own_tag} (default {@code robot}, which ntfy's apps show as 🤖), and
 * the ids ntfy answered for them are remembered; a message of the stream with that tag or one of those ids is never
 * answered, only passed over. With a {@code reply_topic} they do not come back at all.
 *
 * <p>No message is missed or answered twice: the id of the last message Herald was done with is kept in the store's
 * platform state, and the stream is opened with {@code since=<that id>} after a drop and after a restart (before the
 * very first message, with {@code since=<the time reading began>}); the store drops a message id it already holds. One connection per topic ({@link Capabilities.Delivery#SINGLE_CONNECTION}): one
 * node reads, every node publishes.
 */
public final class NtfyAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(NtfyAdapter.class);

    public static final Platform PLATFORM = Platform.of("ntfy");
    /** ntfy takes 4,096 bytes of message (a longer one becomes an attachment); Herald stays a little below. */
    public static final int MAX_TEXT_BYTES = 4000;
    /** ntfy.sh's attachment limit (a self-hosted server may set another). */
    public static final long MAX_FILE_BYTES = 15L * 1024 * 1024;
    static final String SINCE_KEY = "since_id";
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new PlainDialect());

    private final NtfySettings settings;
    private final NtfySettings.Timing timing;
    private final PlatformState state;
    private final NtfyApi api;
    private final NtfyEvents events;
    private final NtfyStream stream;
    private final Capabilities capabilities;
    private final FirstAttempt firstAttempt = new FirstAttempt();
    /** Ids of messages Herald published (the newest 256): they come back on the stream and are not answered. */
    private final Set<String> published = Collections.newSetFromMap(Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > 256;
        }
    }));
    private volatile InboundSink sink;
    private volatile String since;
    /** Until a message was done: the time (epoch seconds) reading began, so a reconnect misses nothing published since. */
    private volatile String startedAt;
    private final Clock clock;

    NtfyAdapter(NtfySettings settings, NtfySettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.state = Objects.requireNonNull(state, "state");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.api = new NtfyApi(settings, timing);
        this.events = new NtfyEvents(PLATFORM, settings.topic(), settings.ownTag(), published::contains);
        this.stream = new NtfyStream(settings.baseUri(), settings.topic(), timing, settings.authorization(), new Lines(clock),
                () -> since != null ? since : startedAt);
        boolean md = settings.markdown();
        this.capabilities = new Capabilities(true, false, false, false, false, settings.authorization().isEmpty(), true, false, MAX_TEXT_BYTES,
                new TextFormat(md ? "markdown" : "plain", text -> render(text, md).getBytes(StandardCharsets.UTF_8).length),
                Capabilities.Delivery.SINGLE_CONNECTION, MAX_FILE_BYTES);
    }

    static String render(String markdown, boolean asMarkdown) {
        return asMarkdown ? markdown : PLAIN.render(markdown);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /** Subscribes from the stored message id; returns once the first attempt is over. */
    @Override
    public void start(InboundSink inboundSink) throws Exception {
        sink = Objects.requireNonNull(inboundSink, "sink");
        try {
            since = state.get(PLATFORM, SINCE_KEY).orElse(null);
        } catch (RuntimeException e) {
            log.warn("ntfy - the stored stream position could not be read ({}); reading new messages only", e.toString());
        }
        startedAt = Long.toString(clock.instant().getEpochSecond() - 1);
        log.info("ntfy - subscribing to {} ({})", settings.topic(), since == null ? "new messages" : "since message " + since);
        sink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "subscribing to " + settings.topic());
        stream.start();
        if (!firstAttempt.await(timing.firstConnectWait(), this::close)) {
            log.warn("ntfy - the stream is not open after {} ms; still trying in the background", timing.firstConnectWait().toMillis());
        }
    }

    /** Publishes one part (text, or a file with its caption) to the reply topic, or to the topic named as the chat. */
    @Override
    public SendResult send(OutboundMessage m) {
        String chat = m.target().chatId();
        String topic = chat.equals(settings.topic()) ? settings.publishTopic() : chat;
        if (!topic.matches("[-_A-Za-z0-9]{1,64}")) {
            return SendResult.failed("ntfy - \"" + NtfyEvents.clip(chat) + "\" is not a topic name", false);
        }
        try {
            NtfyApi.Answer a;
            OutboundFile f = m.file();
            if (f != null) {
                byte[] bytes;
                try {
                    bytes = f.read(MAX_FILE_BYTES);
                } catch (IOException e) {
                    return SendResult.failed("ntfy - " + e.getMessage(), false);
                }
                a = api.upload(topic, f.name(), f.mimeType(), bytes, render(m.text(), false));
            } else {
                String text = render(m.text(), settings.markdown());
                boolean buttons = m.kind() == MessageKind.PROMPT && m.text().contains("/approve") && settings.authorization().isEmpty();
                a = api.publish(topic, text.isBlank() ? "…" : text, settings.markdown(), buttons ? api.approvalActions(settings.topic()) : null);
            }
            if (!a.ok()) {
                return api.failure(f != null ? "publishing the file " + f.name() : "publishing a message", a);
            }
            String id = a.body().path("id").asText("");
            if (!id.isEmpty()) {
                published.add(id);
            }
            return SendResult.sent(id.isEmpty() ? null : id);
        } catch (IOException e) {
            return SendResult.failed("ntfy - publishing: " + api.describe(e), true);
        }
    }

    /** An attachment's bytes, from the configured server only. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        if (ref.size() > maxBytes) {
            throw new IOException("ntfy - the attachment is " + ref.size() + " bytes, over the " + maxBytes + "-byte limit");
        }
        Fetched f = api.download(ref.ref(), maxBytes);
        return new Fetched(f.bytes(), ref.mimeType() != null ? ref.mimeType() : f.mimeType());
    }

    @Override
    public void stopReceiving() {
        stream.close();
    }

    @Override
    public void close() {
        stream.close();
    }

    /** Herald is done with message {@code id}: in memory, and in the store when it can write. */
    private void done(String id) {
        if (id == null || id.equals(since)) {
            return;
        }
        since = id;
        try {
            state.put(PLATFORM, Map.of(SINCE_KEY, id));
        } catch (RuntimeException e) {
            log.debug("ntfy - the stream position was not stored ({}); kept in memory", e.toString());
        }
    }

    private final class Lines implements NtfyStream.Handler {
        private final Clock clock;

        Lines(Clock clock) {
            this.clock = clock;
        }

        @Override
        public NtfyStream.Outcome line(String text) {
            if (text == null) {
                return NtfyStream.Outcome.DONE;
            }
            NtfyEvents.Line line;
            try {
                line = events.read(text, clock.instant());
            } catch (IOException | RuntimeException e) {
                log.warn("ntfy - a line of the stream is not JSON ({} bytes); skipped", text.length());
                return NtfyStream.Outcome.DONE;
            }
            if (line.message() == null) {
                if (line.skipped() != null) {
                    log.info("ntfy - skipped {}", line.skipped());
                } else if (line.own()) {
                    log.debug("ntfy - message {} is Herald's own; not answered", line.id());
                }
                done(line.id());
                return NtfyStream.Outcome.DONE;
            }
            MessageEvent e = line.message();
            InboundSink s = sink;
            if (s == null) {
                return NtfyStream.Outcome.STOP;
            }
            Admission a;
            try {
                a = s.accept(e);
            } catch (RuntimeException ex) {
                if (!StoreException.isOutage(ex)) {
                    log.warn("ntfy - the gateway failed to accept message {}; it is not read again", e.messageId(), ex);
                    done(line.id());
                    return NtfyStream.Outcome.DONE;
                }
                a = Admission.REJECTED_UNAVAILABLE;
            }
            switch (a) {
                case REJECTED_STOPPING -> {
                    log.info("ntfy - message {} arrived while Herald is stopping; read again (since {}) next time", e.messageId(), since);
                    return NtfyStream.Outcome.STOP;
                }
                case REJECTED_UNAVAILABLE -> {
                    log.info("ntfy - message {} held: the store cannot write now; the stream is read again from it", e.messageId());
                    return NtfyStream.Outcome.AGAIN;
                }
                default -> {
                    log.debug("ntfy - message {}: {}", e.messageId(), a);
                    done(line.id());
                    return NtfyStream.Outcome.DONE;
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
