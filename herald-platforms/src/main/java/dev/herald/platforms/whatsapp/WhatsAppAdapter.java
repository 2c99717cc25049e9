package dev.herald.platforms.whatsapp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundHttp;
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
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlatformIds;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * WhatsApp Business through Meta's Cloud API ({@code whatsapp}): messages arrive on Herald's webhook
 * ({@link WhatsAppWebhook}, read by {@link WhatsAppEvents}), replies go out through the Graph API ({@link GraphApi}).
 * One session per person (the Cloud API has no groups); the chat id is the person's {@code wa_id}.
 *
 * <p>Nodes: Meta calls whichever node its load balancer picks, every node sends through the Graph API, and the
 * 24-hour window's clock (the time of each person's last message) is kept in the store's platform state, so any node
 * runs any turn ({@link Capabilities.Delivery#ANY_NODE}).
 *
 * <p>The customer service window: WhatsApp takes free-form messages to a person only within 24 hours of their last
 * message. A reply outside it (known from the stored time, or learned from Graph's error 131047) is not delivered: the
 * configured {@code reply_template} is sent instead (once per closed window) to ask the person to write again, and the
 * part fails for good with a log line naming the window, which the turn's record shows.
 *
 * <p>Sends have no idempotency key on the Cloud API: a part whose answer was lost to a crash is sent again after the
 * restart (at least once).
 */
public final class WhatsAppAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(WhatsAppAdapter.class);

    public static final Platform PLATFORM = Platform.of("whatsapp");
    /** A text message's body holds at most 4,096 characters. */
    public static final int MAX_TEXT = 4096;
    /** Documents: 100 MB, the largest media type the Cloud API takes. */
    public static final long MAX_FILE_BYTES = 100L * 1024 * 1024;
    /** Images (JPEG, PNG): 5 MB; a larger one goes as a document. */
    static final long MAX_IMAGE_BYTES = 5L * 1024 * 1024;
    /** Audio and video: 16 MB; larger ones go as documents. */
    static final long MAX_AUDIO_VIDEO_BYTES = 16L * 1024 * 1024;
    /** An interactive message's body holds at most 1,024 characters. */
    static final int MAX_BUTTON_BODY = 1024;
    private static final Capabilities CAPABILITIES = new Capabilities(true, true, false, false, false, true, true, false, MAX_TEXT,
            new TextFormat("whatsapp", text -> WhatsAppText.render(text).length()), Capabilities.Delivery.ANY_NODE, MAX_FILE_BYTES);
    private static final String WINDOW_KEY = "last_inbound.";

    private final WhatsAppSettings settings;
    private final WhatsAppSettings.Timing timing;
    private final Clock clock;
    private final PlatformState state;
    private final GraphApi api;
    private final WhatsAppWebhook webhook;
    private volatile InboundSink sink;
    /** Recent messages by their event id, for the typing indicator (which names the message it answers). */
    private final Map<String, Typing> recent = java.util.Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Typing> eldest) {
            return size() > 1024;
        }
    });
    /** The window (by the person's last message) for which the template was sent, per person: one template per closed window. */
    private final Map<String, Instant> templateSent = new ConcurrentHashMap<>();

    private static final class Typing {
        final String messageId;
        Instant last = Instant.EPOCH;

        Typing(String messageId) {
            this.messageId = messageId;
        }
    }

    public WhatsAppAdapter(WhatsAppSettings settings, WhatsAppSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.state = Objects.requireNonNull(state, "state");
        this.api = new GraphApi(settings, timing);
        this.webhook = new WhatsAppWebhook(settings, new WhatsAppEvents(PLATFORM, settings.phoneNumberId()), clock, this::receive);
    }

    /** Serves Meta's webhook calls on {@code http} (before Herald listens). */
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

    /**
     * Checks the access token against the phone number ({@code GET /<phone-number-id>}): a rejected token stops the
     * start naming the key; an unreachable Graph API is logged and the webhook is served anyway.
     */
    @Override
    public void start(InboundSink inboundSink) {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "checking the access token");
        try {
            GraphApi.Answer a = api.phoneNumber();
            if (!a.ok() && (a.error().code() == 190 || a.status() == 401)) {
                inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "access token rejected");
                throw new IllegalStateException("whatsapp - the access token was rejected for phone number id " + settings.phoneNumberId() + " ("
                        + a.error().describe() + "); check platforms.whatsapp.access_token");
            }
            if (!a.ok()) {
                log.warn("whatsapp - the Graph API answered {} for phone number id {}; check platforms.whatsapp.phone_number_id (serving "
                        + "the webhook anyway)", a.error().describe(), settings.phoneNumberId());
            } else {
                log.info("whatsapp - sending as {} ({}), phone number id {}", a.body().path("display_phone_number").asText("?"),
                        a.body().path("verified_name").asText("?"), settings.phoneNumberId());
            }
        } catch (IOException e) {
            log.warn("whatsapp - the Graph API is not reachable now ({}); serving the webhook, sends are retried", api.describe(e));
        }
        sink = inboundSink;
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "webhook at " + InboundHttp.pathOf(PLATFORM, "webhook"));
    }

    /**
     * Sends one part: text (WhatsApp formatting, quoting the message it answers), approval buttons for a tool approval
     * question, or a file (uploaded, then sent by its media id). Outside the 24-hour window, see the class comment.
     */
    @Override
    public SendResult send(OutboundMessage m) {
        String to = m.target().chatId();
        Optional<Instant> last;
        try {
            last = lastInbound(to);
        } catch (RuntimeException e) {
            last = Optional.empty(); // the store cannot read now: Meta's answer tells a closed window
        }
        if (last.isPresent() && !last.get().plus(timing.window()).isAfter(clock.instant())) {
            return windowClosed(m, last, "their last message arrived at " + last.get());
        }
        try {
            GraphApi.Answer a = m.file() != null ? sendFile(m) : api.message(textBody(m));
            if (a == null) {
                return SendResult.failed("whatsapp - the file " + m.file().name() + " could not be uploaded", false);
            }
            if (a.ok()) {
                String id = a.body().path("messages").path(0).path("id").asText("");
                return SendResult.sent(id.isEmpty() ? null : id);
            }
            if (a.error().code() == 131047) {
                return windowClosed(m, last, "Meta refused the message (" + a.error().describe() + ")");
            }
            return api.failure(m.file() != null ? "sending the file " + m.file().name() : "sending a message", a);
        } catch (UploadFailed u) {
            return u.result;
        } catch (IOException e) {
            return SendResult.failed("whatsapp - sending a message: " + api.describe(e), true);
        }
    }

    private ObjectNode textBody(OutboundMessage m) {
        String text = WhatsAppText.render(m.text());
        if (text.isBlank()) {
            text = m.text().isBlank() ? "…" : m.text();
        }
        ObjectNode b = recipient(m);
        if (m.kind() == MessageKind.PROMPT && m.text().contains("/approve") && text.length() <= MAX_BUTTON_BODY) {
            b.put("type", "interactive");
            ObjectNode i = b.putObject("interactive").put("type", "button");
            i.putObject("body").put("text", text);
            ArrayNode buttons = i.putObject("action").putArray("buttons");
            button(buttons, "/approve", "Approve");
            button(buttons, "/approve always", "Always");
            button(buttons, "/deny", "Deny");
            return b;
        }
        b.put("type", "text");
        b.putObject("text").put("preview_url", false).put("body", text);
        return b;
    }

    private static void button(ArrayNode buttons, String id, String title) {
        buttons.addObject().put("type", "reply").putObject("reply").put("id", id).put("title", title);
    }

    private ObjectNode recipient(OutboundMessage m) {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("recipient_type", "individual").put("to", m.target().chatId());
        if (m.replyToMessageId() != null && m.part() == 1) {
            b.putObject("context").put("message_id", m.replyToMessageId());
        }
        return b;
    }

    /** An upload that failed: its result is the send's. */
    private static final class UploadFailed extends Exception {
        final transient SendResult result;

        UploadFailed(SendResult result) {
            super(null, null, false, false);
            this.result = result;
        }
    }

    /** Uploads the part's file ({@code POST /<phone-number-id>/media}), then sends it by its media id with the caption. */
    private GraphApi.Answer sendFile(OutboundMessage m) throws IOException, UploadFailed {
        OutboundFile f = m.file();
        byte[] bytes;
        try {
            bytes = f.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            throw new UploadFailed(SendResult.failed("whatsapp - " + e.getMessage(), false));
        }
        String mime = f.mimeType().toLowerCase(java.util.Locale.ROOT);
        String type = mediaType(mime, bytes.length);
        GraphApi.Answer up = api.upload(f.name(), mime, bytes);
        String mediaId = up.ok() ? up.body().path("id").asText("") : "";
        if (!up.ok() || mediaId.isEmpty()) {
            throw new UploadFailed(up.ok() ? SendResult.failed("whatsapp - uploading " + f.name() + ": Meta answered no media id", true)
                    : api.failure("uploading " + f.name(), up));
        }
        ObjectNode b = recipient(m).put("type", type);
        ObjectNode media = b.putObject(type).put("id", mediaId);
        String caption = WhatsAppText.render(m.text());
        if (!caption.isBlank() && !type.equals("audio")) {
            media.put("caption", caption.length() > MAX_BUTTON_BODY ? caption.substring(0, MAX_BUTTON_BODY - 1) + "…" : caption);
        }
        if (type.equals("document")) {
            media.put("filename", f.name());
        }
        return api.message(b);
    }

    /** How WhatsApp shows a file of {@code mime} and {@code size}: its supported image, audio and video types within their limits, else a document. */
    static String mediaType(String mime, long size) {
        if ((mime.equals("image/jpeg") || mime.equals("image/png")) && size <= MAX_IMAGE_BYTES) {
            return "image";
        }
        if (java.util.Set.of("audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg").contains(mime) && size <= MAX_AUDIO_VIDEO_BYTES) {
            return "audio";
        }
        if ((mime.equals("video/mp4") || mime.equals("video/3gpp")) && size <= MAX_AUDIO_VIDEO_BYTES) {
            return "video";
        }
        return "document";
    }

    /** A part that cannot go out because the person's 24-hour window is closed; see the class comment. */
    private SendResult windowClosed(OutboundMessage m, Optional<Instant> last, String why) {
        String to = m.target().chatId();
        String what = m.kind().name().toLowerCase(java.util.Locale.ROOT) + (m.parts() > 1 ? " (part " + m.part() + " of " + m.parts() + ")" : "");
        WhatsAppSettings.ReplyTemplate template = settings.replyTemplate();
        String error = "whatsapp - the 24-hour customer service window with " + to + " is closed (" + why + "): WhatsApp takes only "
                + "template messages until they write again; the " + what + " was not delivered";
        if (!template.configured()) {
            log.warn("{}; set platforms.whatsapp.reply_template to an approved template to ask them to write again", error);
            return SendResult.failed(error + " (no platforms.whatsapp.reply_template set)", false);
        }
        Instant window = last.orElse(Instant.EPOCH);
        if (window.equals(templateSent.get(to))) {
            log.warn("{}; template {} was sent already for this window", error, template);
            return SendResult.failed(error + "; template " + template.name() + " was sent already", false);
        }
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("recipient_type", "individual").put("to", to).put("type", "template");
        b.putObject("template").put("name", template.name()).putObject("language").put("code", template.language());
        try {
            GraphApi.Answer a = api.message(b);
            if (!a.ok()) {
                SendResult r = api.failure("sending template " + template.name(), a);
                log.warn("{}; template {} could not be sent either: {}", error, template, r.error());
                return r.retryable() ? r : SendResult.failed(error + "; template " + template.name() + " failed: " + r.error(), false);
            }
        } catch (IOException e) {
            return SendResult.failed("whatsapp - sending template " + template.name() + ": " + api.describe(e), true);
        }
        templateSent.put(to, window);
        log.warn("{}; sent template {} asking them to write again", error, template);
        return SendResult.failed(error + "; sent template " + template.name() + " asking them to write again", false);
    }

    /** Marks the message a running turn answers as read and shows the typing indicator (25 s on WhatsApp), renewed at most every {@code typingInterval}. */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (!(event instanceof StreamEvent.Typing) || correlationId == null) {
            return;
        }
        Typing t = recent.get(correlationId);
        Instant now = clock.instant();
        if (t == null) {
            return;
        }
        synchronized (t) {
            if (t.last.plus(timing.typingInterval()).isAfter(now)) {
                return;
            }
            t.last = now;
        }
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("status", "read").put("message_id", t.messageId);
        b.putObject("typing_indicator").put("type", "text");
        try {
            GraphApi.Answer a = api.message(b);
            if (!a.ok()) {
                log.debug("whatsapp - typing indicator for {} not shown: {}", t.messageId, a.error().describe());
            }
        } catch (IOException e) {
            log.debug("whatsapp - typing indicator for {} not shown: {}", t.messageId, api.describe(e));
        }
    }

    /**
     * The bytes of a media message: {@code GET /<media-id>} gives a short-lived URL, which is fetched with the token from
     * Meta's media hosts only ({@link GraphApi#download}).
     */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        String id = PlatformIds.clean(ref.ref());
        if (id == null) {
            throw new IOException("whatsapp - " + ref.kind() + " has no usable media id");
        }
        GraphApi.Answer a;
        try {
            a = api.mediaInfo(id);
        } catch (IOException e) {
            throw new IOException("whatsapp - looking up media " + id + ": " + api.describe(e));
        }
        if (!a.ok()) {
            throw new IOException("whatsapp - looking up media " + id + ": " + a.error().describe());
        }
        long size = a.body().path("file_size").asLong(-1);
        if (size > maxBytes) {
            throw new IOException("whatsapp - media " + id + " is " + size + " bytes, over the " + maxBytes + "-byte limit");
        }
        String url = a.body().path("url").asText("");
        Fetched f = api.download(url, maxBytes);
        String declared = a.body().path("mime_type").isTextual() ? a.body().path("mime_type").asText() : null;
        return new Fetched(f.bytes(), declared != null ? declared : f.mimeType());
    }

    /** Hands one message to the gateway; notes the person's window and the message for the typing indicator once it is taken. */
    private Admission receive(WhatsAppEvents.Incoming in) {
        InboundSink s = sink;
        if (s == null) {
            return Admission.REJECTED_STOPPING;
        }
        Admission a;
        try {
            a = s.accept(in.event());
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("whatsapp - the gateway failed to take message {}; answered 503 so that Meta delivers it again", in.event().messageId(), e);
            }
            return Admission.REJECTED_UNAVAILABLE;
        }
        if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
            return a;
        }
        recent.put(in.event().eventId(), new Typing(in.event().messageId()));
        try {
            Optional<Instant> known = lastInbound(in.waId());
            if (known.isEmpty() || known.get().isBefore(in.sentAt())) {
                state.put(PLATFORM, Map.of(WINDOW_KEY + in.waId(), Long.toString(in.sentAt().getEpochSecond())));
            }
        } catch (RuntimeException e) {
            log.debug("whatsapp - could not note the time of {}'s message in the store ({}); the window is learned from Meta's answer",
                    in.waId(), e.toString());
        }
        return a;
    }

    private Optional<Instant> lastInbound(String waId) {
        return state.get(PLATFORM, WINDOW_KEY + waId).filter(v -> v.matches("[0-9]{1,12}")).map(v -> Instant.ofEpochSecond(Long.parseLong(v)));
    }

    @Override
    public void close() {
        sink = null;
        api.close();
    }
}
