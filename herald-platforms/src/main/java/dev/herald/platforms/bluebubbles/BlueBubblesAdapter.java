package dev.herald.platforms.bluebubbles;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.Multipart;
import dev.herald.platforms.common.PlainDialect;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * iMessage through a BlueBubbles server ({@code bluebubbles}): the server POSTs its events to Herald's webhook
 * ({@link BlueBubblesWebhook}, read by {@link BlueBubblesEvents}); replies go out through its REST API
 * ({@link BlueBubblesApi}). One session per chat guid: a 1:1 chat ({@code iMessage;-;+15551234567}) or a group
 * ({@code iMessage;+;chat...}, where only messages naming one of {@code mention_names} start a turn unless
 * {@code require_mention} is off).
 *
 * <p>Reachability: {@code GET /api/v1/ping} is polled every {@code pingInterval}; an answer is
 * {@link ConnectionState#CONNECTED}, none (or an error) is {@link ConnectionState#BACKING_OFF} with the reason in the
 * detail the admin page and {@code herald status} show, and one log line per change. Sends are tried meanwhile and
 * fail as retryable, so the gateway offers them again once the Mac is back.
 *
 * <p>Each send carries a {@code tempGuid} derived from the outbox idempotency key, so a retry of the same part carries
 * the same one; BlueBubbles refuses a tempGuid it is still sending ("already queued"), which Herald takes as sent.
 * Once the server finished the first send it cannot tell a retry apart: a part whose answer was lost to a crash is sent
 * again (at least once). Approvals are typed ({@code /approve}, {@code /deny}): iMessage has no buttons.
 */
public final class BlueBubblesAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(BlueBubblesAdapter.class);

    public static final Platform PLATFORM = Platform.of("bluebubbles");
    /** iMessage takes longer texts, but a reply split at 4,000 characters reads better on a phone. */
    public static final int MAX_TEXT = 4000;
    /** The largest file Herald sends or fetches. */
    public static final long MAX_FILE_BYTES = 100L * 1024 * 1024;
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new PlainDialect());

    private final BlueBubblesSettings settings;
    private final BlueBubblesSettings.Timing timing;
    private final Clock clock;
    private final BlueBubblesApi api;
    private final BlueBubblesWebhook webhook;
    private final Capabilities capabilities;
    private volatile InboundSink sink;
    /** The last ping's finding: null before the first, else "" when the server answered, or why it did not. */
    private volatile String problem;
    private ScheduledExecutorService poller;
    /** Recent messages by their event id, for the read marker and the typing indicator of the turn answering them. */
    private final Map<String, Recent> recent = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Recent> eldest) {
            return size() > 1024;
        }
    });
    /** When the typing indicator was last started, per chat. */
    private final Map<String, Instant> typing = new ConcurrentHashMap<>();

    private static final class Recent {
        final BlueBubblesEvents.Incoming in;
        boolean read;

        Recent(BlueBubblesEvents.Incoming in) {
            this.in = in;
        }
    }

    public BlueBubblesAdapter(BlueBubblesSettings settings, BlueBubblesSettings.Timing timing, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.api = new BlueBubblesApi(settings, timing);
        this.webhook = new BlueBubblesWebhook(settings, new BlueBubblesEvents(PLATFORM, settings.requireMention(), settings.mentionNames()),
                clock, this::receive);
        this.capabilities = new Capabilities(true, settings.privateApi(), false, false, false, false, true, false, MAX_TEXT,
                new TextFormat("plain", text -> render(text).length()), Capabilities.Delivery.ANY_NODE, MAX_FILE_BYTES);
    }

    static String render(String markdown) {
        return PLAIN.render(markdown);
    }

    void serveOn(InboundHttp http) {
        webhook.serveOn(http);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /** Whether the last ping was answered; null before the first. */
    Boolean reachable() {
        String p = problem;
        return p == null ? null : p.isEmpty();
    }

    /**
     * Pings the server once (a refused password stops the start naming the key; an unreachable server is logged and
     * shown, and the webhook is served anyway), then every {@code pingInterval}.
     */
    @Override
    public void start(InboundSink inboundSink) {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "pinging the BlueBubbles server");
        String host = settings.baseUri().getHost() == null ? "" : settings.baseUri().getHost();
        if ("http".equalsIgnoreCase(settings.baseUri().getScheme()) && !host.equals("localhost") && !host.startsWith("127.") && !host.equals("[::1]")) {
            log.warn("bluebubbles - platforms.bluebubbles.url is plain http to {}: the server password and the messages cross the network "
                    + "unencrypted; keep the Mac on a private network or use the https address BlueBubbles offers", host);
        }
        sink = inboundSink;
        if (ping().equals("refused")) {
            sink = null;
            inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "password refused");
            throw new IllegalStateException("bluebubbles - the BlueBubbles server at " + settings.url()
                    + " refused the password; check platforms.bluebubbles.password");
        }
        ScheduledExecutorService p = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bluebubbles-ping");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(50, timing.pingInterval().toMillis());
        p.scheduleWithFixedDelay(this::ping, every, every, TimeUnit.MILLISECONDS);
        poller = p;
    }

    /** One ping; returns "" when answered, "refused" for a refused password, else why it was not answered. */
    private String ping() {
        String found;
        try {
            BlueBubblesApi.Answer a = api.ping();
            found = a.ok() ? "" : a.status() == 401 || a.status() == 403 ? "refused" : "it answered " + a.describe();
        } catch (IOException e) {
            found = "it does not answer (" + api.describe(e) + ")";
        } catch (RuntimeException e) {
            log.warn("bluebubbles - pinging the server failed", e);
            found = "pinging it failed";
        }
        apply(found);
        return found;
    }

    /** Notes {@code found}; a change is one log line and the connection state (reported outside the lock). */
    private void apply(String found) {
        String before;
        synchronized (this) {
            if (found.equals(problem)) {
                return;
            }
            before = problem;
            problem = found;
        }
        InboundSink s = sink;
        if (found.isEmpty()) {
            String detail = "BlueBubbles server at " + settings.url() + " answers (" + settings.sendMethod() + ")";
            log.info("bluebubbles - {}{}", detail, before == null ? "" : "; it was unreachable, waiting replies go out now");
            if (s != null) {
                s.connectionChanged(PLATFORM, ConnectionState.CONNECTED, detail);
            }
            return;
        }
        String detail = found.equals("refused") ? "BlueBubbles server at " + settings.url() + " refused the password (platforms.bluebubbles.password)"
                : "BlueBubbles server at " + settings.url() + " unreachable: " + found + "; is the Mac awake and BlueBubbles running?";
        log.warn("bluebubbles - {}; replies are retried until it answers", detail);
        if (s != null) {
            s.connectionChanged(PLATFORM, ConnectionState.BACKING_OFF, detail);
        }
    }

    /** The tempGuid of one send: a UUID derived from the outbox idempotency key (and {@code what}), random when there is none. */
    static String tempGuid(String idempotencyKey, String what) {
        return idempotencyKey == null ? UUID.randomUUID().toString()
                : UUID.nameUUIDFromBytes(("herald-bluebubbles:" + idempotencyKey + ":" + what).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /**
     * Sends one part: text as plain text (with the Private API, the first part as a reply to the message it answers), or
     * a file by multipart upload followed by its caption.
     */
    @Override
    public SendResult send(OutboundMessage m) {
        String chat = m.target().chatId();
        String text = render(m.text());
        try {
            String sentGuid = null;
            if (m.file() != null) {
                SendResult r = sendFile(m, chat);
                if (!r.success() || text.isBlank()) {
                    return finished(m, chat, r);
                }
                sentGuid = r.messageId();
            }
            ObjectNode body = JsonHttp.JSON.createObjectNode().put("chatGuid", chat).put("tempGuid", tempGuid(m.idempotencyKey(), "text"))
                    .put("message", text.isBlank() ? (m.text().isBlank() ? "…" : m.text()) : text).put("method", settings.sendMethod());
            if (settings.privateApi() && m.replyToMessageId() != null && m.part() == 1 && m.file() == null) {
                body.put("selectedMessageGuid", m.replyToMessageId()).put("partIndex", 0);
            }
            BlueBubblesApi.Answer a = api.sendText(body);
            SendResult r = result("sending a message", a);
            return finished(m, chat, r.success() && r.messageId() == null && sentGuid != null ? SendResult.sent(sentGuid) : r);
        } catch (IOException e) {
            return SendResult.failed("bluebubbles - sending to " + chat + ": the server does not answer (" + api.describe(e) + ")", true);
        }
    }

    private SendResult sendFile(OutboundMessage m, String chat) throws IOException {
        OutboundFile f = m.file();
        byte[] bytes;
        try {
            bytes = f.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            return SendResult.failed("bluebubbles - " + e.getMessage(), false);
        }
        Multipart form = new Multipart().field("chatGuid", chat).field("tempGuid", tempGuid(m.idempotencyKey(), "file"))
                .field("name", f.name()).field("method", settings.sendMethod())
                .file("attachment", f.name(), f.mimeType().toLowerCase(Locale.ROOT), bytes);
        return result("sending the file " + f.name(), api.sendAttachment(form));
    }

    private SendResult result(String what, BlueBubblesApi.Answer a) {
        if (a.ok()) {
            return SendResult.sent(BlueBubblesApi.messageGuid(a.body()));
        }
        if (a.status() == 400 && a.describe().toLowerCase(Locale.ROOT).contains("already queued")) {
            log.info("bluebubbles - {}: the server is still sending this part from an earlier try (same tempGuid); not sent twice", what);
            return SendResult.sent(null);
        }
        return api.failure(what, a);
    }

    private SendResult finished(OutboundMessage m, String chat, SendResult r) {
        if (r.success() && m.isLastPart() && typing.remove(chat) != null) {
            try {
                api.typing(chat, false);
            } catch (IOException e) {
                log.debug("bluebubbles - stopping the typing indicator in {}: {}", chat, api.describe(e));
            }
        }
        return r;
    }

    /** With the Private API: marks the chat of the message a running turn answers read (once) and shows "typing…" in it. */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (!settings.privateApi() || !(event instanceof StreamEvent.Typing) || correlationId == null) {
            return;
        }
        Recent r = recent.get(correlationId);
        if (r == null || !"".equals(problem)) {
            return;
        }
        String chat = r.in.chatGuid();
        boolean markRead;
        synchronized (r) {
            markRead = !r.read;
            r.read = true;
        }
        Instant now = clock.instant();
        Instant last = typing.get(chat);
        boolean renew = last == null || !last.plus(timing.typingInterval()).isAfter(now);
        try {
            if (markRead) {
                BlueBubblesApi.Answer a = api.markRead(chat);
                if (!a.ok()) {
                    log.debug("bluebubbles - marking {} read: {}", chat, a.describe());
                }
            }
            if (renew) {
                typing.put(chat, now);
                BlueBubblesApi.Answer a = api.typing(chat, true);
                if (!a.ok()) {
                    log.debug("bluebubbles - typing indicator in {} not shown: {}", chat, a.describe());
                }
            }
        } catch (IOException e) {
            log.debug("bluebubbles - read marker or typing indicator in {} not shown: {}", chat, api.describe(e));
        }
    }

    /** The bytes of an attachment: fetched from the configured server's {@code /api/v1/attachment/<guid>/download} only. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        Fetched f = api.download(ref.ref(), Math.min(maxBytes, MAX_FILE_BYTES));
        return new Fetched(f.bytes(), ref.mimeType() != null ? ref.mimeType() : f.mimeType());
    }

    /** Hands one message to the gateway; notes it for the read marker and the typing indicator once it is taken. */
    private Admission receive(BlueBubblesEvents.Incoming in) {
        InboundSink s = sink;
        if (s == null) {
            return Admission.REJECTED_STOPPING;
        }
        Admission a;
        try {
            a = s.accept(in.event());
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("bluebubbles - the gateway failed to take message {}; answered 503 so that it can be delivered again",
                        in.event().messageId(), e);
            }
            return Admission.REJECTED_UNAVAILABLE;
        }
        if (a != Admission.REJECTED_STOPPING && a != Admission.REJECTED_UNAVAILABLE) {
            recent.put(in.event().eventId(), new Recent(in));
        }
        return a;
    }

    @Override
    public void close() {
        sink = null;
        ScheduledExecutorService p = poller;
        if (p != null) {
            p.shutdownNow();
        }
    }
}
