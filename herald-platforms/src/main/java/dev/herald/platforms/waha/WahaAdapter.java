package dev.herald.platforms.waha;

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
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * WhatsApp on a personal number through a WAHA bridge ({@code waha}): WAHA POSTs its events to Herald's webhook
 * ({@link WahaWebhook}, read by {@link WahaEvents}), replies go out through WAHA's HTTP API ({@link WahaApi}). One
 * session per chat: a person's direct chat ({@code 4915...@c.us}) or a group ({@code ...@g.us}, where only messages
 * that mention the number start a turn unless {@code require_mention} is off).
 *
 * <p>The session's status: WAHA's {@code GET /api/sessions/<session>} is polled every {@code statusInterval} (and a
 * {@code session.status} event is read when WAHA sends one). {@code WORKING} is {@link ConnectionState#CONNECTED};
 * anything else ({@code SCAN_QR_CODE}, {@code STARTING}, {@code FAILED}, {@code STOPPED}, no such session) is
 * {@link ConnectionState#BACKING_OFF} with the status and what to do in the detail, which the admin page and
 * {@code herald status} show, and one log line per change. While it lasts, sends fail as retryable without calling
 * WAHA; when the session works again the gateway offers the waiting replies once more.
 *
 * <p>Nodes: WAHA calls one URL, every node can send, nothing is kept but in the store: any node runs any turn. WAHA's
 * send has no idempotency key: a part whose answer was lost to a crash is sent again after the restart (at least once).
 * Approvals are typed ({@code /approve}, {@code /deny}): buttons are not reliable on personal numbers.
 */
public final class WahaAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(WahaAdapter.class);

    public static final Platform PLATFORM = Platform.of("waha");
    /** WhatsApp takes far longer texts, but a reply split at 4,096 characters reads better on a phone. */
    public static final int MAX_TEXT = 4096;
    /** A file goes to WAHA as base64 in JSON: at most 32 MB. */
    public static final long MAX_FILE_BYTES = 32L * 1024 * 1024;
    static final String WORKING = "WORKING";
    /** Herald's own names for what WAHA did not say: unreachable, no such session, key refused. */
    static final String UNREACHABLE = "UNREACHABLE";
    static final String NO_SESSION = "NO_SESSION";
    static final String KEY_REFUSED = "KEY_REFUSED";
    private static final Set<String> IMAGE_TYPES = Set.of("image/jpeg", "image/png", "image/gif", "image/webp");
    private static final Capabilities CAPABILITIES = new Capabilities(true, true, false, false, false, false, true, false, MAX_TEXT,
            new TextFormat("whatsapp", text -> WahaText.render(text).length()), Capabilities.Delivery.ANY_NODE, MAX_FILE_BYTES);

    private final WahaSettings settings;
    private final WahaSettings.Timing timing;
    private final Clock clock;
    private final WahaApi api;
    private final WahaWebhook webhook;
    private volatile InboundSink sink;
    private volatile String status;
    private volatile WahaEvents.Me me = WahaEvents.Me.UNKNOWN;
    private ScheduledExecutorService poller;
    /** Recent messages by their event id, for the read receipt and the typing indicator of the turn answering them. */
    private final Map<String, Recent> recent = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Recent> eldest) {
            return size() > 1024;
        }
    });
    /** When the typing indicator was last started, per chat. */
    private final Map<String, Instant> typing = new ConcurrentHashMap<>();

    private static final class Recent {
        final WahaEvents.Incoming in;
        boolean seen;

        Recent(WahaEvents.Incoming in) {
            this.in = in;
        }
    }

    public WahaAdapter(WahaSettings settings, WahaSettings.Timing timing, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.api = new WahaApi(settings, timing);
        this.webhook = new WahaWebhook(settings, timing, new WahaEvents(PLATFORM, settings.session(), settings.requireMention()), clock,
                () -> me, this::observe, this::receive);
    }

    /** Serves WAHA's webhook calls on {@code http} (before Herald listens). */
    void serveOn(InboundHttp http) {
        webhook.serveOn(http);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    /** The session's last known status: WAHA's ({@code WORKING}, {@code SCAN_QR_CODE}, ...) or Herald's ({@code UNREACHABLE}, ...); null before the first poll. */
    String status() {
        return status;
    }

    /**
     * Reads the session's status once (a refused API key stops the start naming the key; WAHA unreachable or the session
     * not working is logged and shown, and the webhook is served anyway), then polls it every {@code statusInterval}.
     */
    @Override
    public void start(InboundSink inboundSink) {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "reading WAHA session " + settings.session());
        String host = settings.baseUri().getHost() == null ? "" : settings.baseUri().getHost();
        if ("http".equalsIgnoreCase(settings.baseUri().getScheme()) && !host.equals("localhost") && !host.startsWith("127.") && !host.equals("[::1]")) {
            log.warn("waha - platforms.waha.url is plain http to {}: the API key and the messages cross the network unencrypted; keep WAHA "
                    + "on a private network (e.g. the same Docker network) or put https in front of it", host);
        }
        sink = inboundSink;
        if (KEY_REFUSED.equals(poll())) {
            sink = null;
            inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "API key refused");
            throw new IllegalStateException("waha - WAHA at " + settings.url() + " refused the API key; check platforms.waha.api_key");
        }
        ScheduledExecutorService p = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "waha-status");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(50, timing.statusInterval().toMillis());
        p.scheduleWithFixedDelay(this::poll, every, every, TimeUnit.MILLISECONDS);
        poller = p;
    }

    /** One status poll; returns the status it found. */
    private String poll() {
        String found;
        WahaEvents.Me who = null;
        try {
            WahaApi.Answer a = api.sessionInfo();
            if (a.status() == 401 || a.status() == 403) {
                found = KEY_REFUSED;
            } else if (a.status() == 404) {
                found = NO_SESSION;
            } else if (!a.ok()) {
                found = UNREACHABLE;
            } else {
                WahaApi.SessionInfo s = WahaApi.sessionOf(a.body());
                found = s.status();
                who = new WahaEvents.Me(WahaEvents.jid(s.meId()), WahaEvents.jid(s.meLid()));
            }
        } catch (IOException e) {
            found = UNREACHABLE;
        } catch (RuntimeException e) {
            log.warn("waha - reading the session's status failed", e);
            found = UNREACHABLE;
        }
        if (who != null && who.known()) {
            me = who;
        }
        apply(found);
        return found;
    }

    /**
     * Notes {@code found}; a change is one log line and the connection state the admin page shows (reported outside the
     * lock, so a gateway that sends from inside its own callback cannot deadlock with a poll).
     */
    private void apply(String found) {
        String before;
        synchronized (this) {
            if (found.equals(status)) {
                return;
            }
            before = status;
            status = found;
        }
        InboundSink s = sink;
        if (found.equals(WORKING)) {
            String detail = "WAHA session " + settings.session() + " WORKING" + (me.id() == null ? "" : " as " + me.id().replace("@c.us", ""));
            log.info("waha - {}{}", detail, before == null ? "" : " (was " + before + ")");
            if (s != null) {
                s.connectionChanged(PLATFORM, ConnectionState.CONNECTED, detail);
            }
            return;
        }
        String detail = "WAHA session " + settings.session() + " " + found + ": " + advice(found);
        log.warn("waha - {}; {}", detail, found.equals(UNREACHABLE) ? "sends are tried and retried" : "replies wait until it is WORKING");
        if (s != null) {
            s.connectionChanged(PLATFORM, ConnectionState.BACKING_OFF, detail);
        }
    }

    private String advice(String found) {
        return switch (found) {
            case "SCAN_QR_CODE" -> "scan the QR code in WAHA's dashboard with the phone (WhatsApp > Linked devices)";
            case "STARTING" -> "WAHA is starting the session";
            case "FAILED" -> "the session failed; restart it in WAHA (and link the phone again if WhatsApp logged it out)";
            case "STOPPED" -> "the session is stopped; start it in WAHA";
            case UNREACHABLE -> "WAHA at " + settings.url() + " does not answer (platforms.waha.url)";
            case NO_SESSION -> "WAHA has no such session; create and start it, or set platforms.waha.session";
            case KEY_REFUSED -> "WAHA refused the API key (platforms.waha.api_key)";
            default -> "not WORKING";
        };
    }

    /** What a signed event said about the session: its own number and its new status. */
    private void observe(WahaEvents.Parsed parsed) {
        if (parsed.me().known()) {
            me = parsed.me();
        }
        if (parsed.status() != null) {
            apply(parsed.status());
        }
    }

    /**
     * Sends one part: text in WhatsApp's formatting (the first part quoting the message it answers), or a file as base64
     * ({@code sendImage} for pictures, {@code sendFile} for the rest) with its caption. While the session is not WORKING
     * the part fails as retryable without a call.
     */
    @Override
    public SendResult send(OutboundMessage m) {
        String s = status;
        if (s != null && !s.equals(WORKING) && !s.equals(UNREACHABLE)) {
            return SendResult.failed("waha - WAHA session " + settings.session() + " is " + s + " (" + advice(s) + "); the reply waits", true);
        }
        String chat = m.target().chatId();
        ObjectNode body = JsonHttp.JSON.createObjectNode().put("chatId", chat);
        if (m.replyToMessageId() != null && m.part() == 1) {
            body.put("reply_to", m.replyToMessageId());
        }
        String method;
        String what;
        if (m.file() != null) {
            OutboundFile f = m.file();
            byte[] bytes;
            try {
                bytes = f.read(MAX_FILE_BYTES);
            } catch (IOException e) {
                return SendResult.failed("waha - " + e.getMessage(), false);
            }
            String mime = f.mimeType().toLowerCase(Locale.ROOT);
            method = IMAGE_TYPES.contains(mime) ? "sendImage" : "sendFile";
            what = "sending the file " + f.name();
            body.putObject("file").put("mimetype", mime).put("filename", f.name()).put("data", Base64.getEncoder().encodeToString(bytes));
            String caption = WahaText.render(m.text());
            if (!caption.isBlank()) {
                body.put("caption", caption);
            }
        } else {
            String text = WahaText.render(m.text());
            method = "sendText";
            what = "sending a message";
            body.put("text", text.isBlank() ? (m.text().isBlank() ? "…" : m.text()) : text).put("linkPreview", false);
        }
        try {
            WahaApi.Answer a = api.call(method, body);
            if (a.status() == 422) {
                // WAHA's 422 is "the session is not ready" or "not in this tier/engine" (WAHA Core sends no files): the status tells which
                String now = poll();
                return WORKING.equals(now)
                        ? SendResult.failed("waha - " + what + ": WAHA cannot (" + a.describe() + ")" + (m.file() != null
                                ? "; sending files needs WAHA Plus" : ""), false)
                        : SendResult.failed("waha - " + what + ": WAHA session " + settings.session() + " is " + now + " (" + advice(now)
                                + "); the reply waits", true);
            }
            if (!a.ok()) {
                return api.failure(what, a);
            }
            if (m.isLastPart() && typing.remove(chat) != null) {
                stopTyping(chat);
            }
            return SendResult.sent(WahaApi.messageId(a.body()));
        } catch (IOException e) {
            return SendResult.failed("waha - " + what + ": " + api.describe(e), true);
        }
    }

    private void stopTyping(String chat) {
        try {
            api.call("stopTyping", JsonHttp.JSON.createObjectNode().put("chatId", chat));
        } catch (IOException e) {
            log.debug("waha - stopping the typing indicator in {}: {}", chat, api.describe(e));
        }
    }

    /** Marks the message a running turn answers as seen (once) and shows "typing…" in its chat, renewed at most every {@code typingInterval}. */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (!(event instanceof StreamEvent.Typing) || correlationId == null) {
            return;
        }
        Recent r = recent.get(correlationId);
        if (r == null || !WORKING.equals(status)) {
            return;
        }
        String chat = r.in.chatId();
        boolean markSeen;
        synchronized (r) {
            markSeen = !r.seen;
            r.seen = true;
        }
        Instant now = clock.instant();
        Instant last = typing.get(chat);
        boolean renew = last == null || !last.plus(timing.typingInterval()).isAfter(now);
        try {
            if (markSeen) {
                ObjectNode b = JsonHttp.JSON.createObjectNode().put("chatId", chat);
                b.putArray("messageIds").add(r.in.event().messageId());
                if (r.in.participant() != null) {
                    b.put("participant", r.in.participant());
                }
                WahaApi.Answer a = api.call("sendSeen", b);
                if (!a.ok()) {
                    log.debug("waha - marking {} seen: {}", r.in.event().messageId(), a.describe());
                }
            }
            if (renew) {
                typing.put(chat, now);
                WahaApi.Answer a = api.call("startTyping", JsonHttp.JSON.createObjectNode().put("chatId", chat));
                if (!a.ok()) {
                    log.debug("waha - typing indicator in {} not shown: {}", chat, a.describe());
                }
            }
        } catch (IOException e) {
            log.debug("waha - read receipt or typing indicator in {} not shown: {}", chat, api.describe(e));
        }
    }

    /** The bytes of a file WAHA stored: fetched from WAHA's own {@code /api/files/} with the API key ({@link WahaApi#download}). */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        Fetched f = api.download(ref.ref(), maxBytes);
        return new Fetched(f.bytes(), ref.mimeType() != null ? ref.mimeType() : f.mimeType());
    }

    /** Hands one message to the gateway; notes it for the read receipt and the typing indicator once it is taken. */
    private Admission receive(WahaEvents.Incoming in) {
        InboundSink s = sink;
        if (s == null) {
            return Admission.REJECTED_STOPPING;
        }
        Admission a;
        try {
            a = s.accept(in.event());
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("waha - the gateway failed to take message {}; answered 503 so that WAHA delivers it again", in.event().messageId(), e);
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
        api.close();
    }
}
