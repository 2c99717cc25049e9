package dev.herald.platforms.wecom;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
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
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlatformIds;
import java.io.IOException;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A WeCom (企业微信) self-built app in callback mode ({@code wecom}): members' messages arrive encrypted on Herald's
 * callback URL ({@link WeComCallback}, decrypted by {@link WeComCrypto}, read by {@link WeComEvents}); replies go out
 * asynchronously through {@code message/send} ({@link WeComApi}) as markdown or text, files through
 * {@code media/upload}, approval questions as a {@code template_card} with three buttons whose presses come back as
 * {@code template_card_event} callbacks. App chats are 1:1 (a member and the app): one session per member, the chat id
 * is the member's UserID.
 *
 * <p>Nodes: WeCom calls whichever node its load balancer picks and every node can send (each caches its own access
 * token), so any node runs any turn ({@link Capabilities.Delivery#ANY_NODE}). {@code message/send} has no idempotency
 * key: a part whose answer was lost to a crash is sent again after the restart (at least once).
 */
public final class WeComAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(WeComAdapter.class);

    public static final Platform PLATFORM = Platform.of("wecom");
    /** A text or markdown message's content: 2,048 bytes of UTF-8. */
    public static final int MAX_TEXT_BYTES = 2048;
    /** Ordinary files: 20 MB. */
    public static final long MAX_FILE_BYTES = 20L * 1024 * 1024;
    /** Images (JPG, PNG) and videos (MP4): 10 MB; larger ones go as files. */
    static final long MAX_IMAGE_BYTES = 10L * 1024 * 1024;
    /** A template card's sub-title text; a longer approval question goes as text (typed /approve still works). */
    static final int MAX_CARD_TEXT = 1000;

    private static final int RECENT_PRESSES = 64;
    private static final String PRESSES_KEY = "recent_button_presses";

    private final WeComSettings settings;
    private final PlatformState state;
    private final WeComApi api;
    private final WeComCallback callback;
    private final Capabilities capabilities;
    private volatile InboundSink sink;

    WeComAdapter(WeComSettings settings, WeComSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.state = Objects.requireNonNull(state, "state");
        this.api = new WeComApi(settings, timing, clock);
        WeComCrypto crypto = new WeComCrypto(settings.tokenValue(), settings.encodingAesKeyValue(), settings.corpId());
        this.callback = new WeComCallback(crypto, new WeComEvents(PLATFORM, settings.agentId()), clock, timing.timestampWindow(), this::receive);
        boolean md = settings.markdown();
        this.capabilities = new Capabilities(true, false, false, false, false, true, true, false, MAX_TEXT_BYTES,
                new TextFormat(md ? "wecom-markdown" : "plain", text -> WeComText.bytes(WeComText.render(text, md))),
                Capabilities.Delivery.ANY_NODE, MAX_FILE_BYTES);
    }

    void serveOn(InboundHttp http) {
        callback.serveOn(http);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /** Fetches an access token: a refused secret stops the start naming the keys; an unreachable API is logged. */
    @Override
    public void start(InboundSink inboundSink) {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "fetching an access token");
        try {
            api.token();
            log.info("wecom - access token fetched for corp {} (agent {})", settings.corpId(), settings.agentId());
        } catch (WeComApi.TokenRefused e) {
            inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "access token refused");
            throw new IllegalStateException("wecom - WeCom refused an access token for corp " + settings.corpId() + " ("
                    + e.answer.describe() + "); check platforms.wecom.corp_id and platforms.wecom.corp_secret");
        } catch (IOException e) {
            log.warn("wecom - the WeCom API is not reachable now ({}); serving the callback, sends are retried", api.describe(e));
        }
        sink = inboundSink;
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "callback at " + InboundHttp.pathOf(PLATFORM, "callback"));
    }

    /** Sends one part: text or markdown, approval buttons as a template card, or a file (uploaded, then sent by its id). */
    @Override
    public SendResult send(OutboundMessage m) {
        String to = PlatformIds.clean(m.target().chatId());
        if (to == null) {
            return SendResult.failed("wecom - \"" + m.target().chatId() + "\" is not a UserID", false);
        }
        try {
            if (m.file() != null) {
                return sendFile(m, to);
            }
            return result("sending a message", api.send(body(m, to)));
        } catch (IOException e) {
            return SendResult.failed("wecom - sending a message: " + api.describe(e), true);
        }
    }

    private ObjectNode base(String to, String type) {
        return JsonHttp.JSON.createObjectNode().put("touser", to).put("msgtype", type).put("agentid", settings.agentId());
    }

    private ObjectNode body(OutboundMessage m, String to) {
        String text = WeComText.render(m.text(), settings.markdown());
        if (text.isBlank()) {
            text = m.text().isBlank() ? "…" : m.text();
        }
        if (m.kind() == MessageKind.PROMPT && m.text().contains("/approve")) {
            String plain = WeComText.render(m.text(), false);
            if (plain.length() <= MAX_CARD_TEXT) {
                return card(m, to, plain);
            }
        }
        String type = settings.markdown() ? "markdown" : "text";
        ObjectNode b = base(to, type);
        b.putObject(type).put("content", text);
        return b;
    }

    /** A button_interaction card: the question and Approve / Always / Deny, whose keys come back in template_card_event. */
    private ObjectNode card(OutboundMessage m, String to, String question) {
        ObjectNode b = base(to, "template_card");
        ObjectNode c = b.putObject("template_card").put("card_type", "button_interaction");
        c.putObject("main_title").put("title", "Approval needed").put("desc", "Herald");
        c.put("sub_title_text", question);
        String task = (m.correlationId() == null ? "notice" : m.correlationId()) + "-" + m.part();
        c.put("task_id", ("herald-" + task).replaceAll("[^A-Za-z0-9_@-]", "_"));
        ArrayNode buttons = c.putArray("button_list");
        buttons.addObject().put("text", "Approve").put("style", 1).put("key", "herald_approve");
        buttons.addObject().put("text", "Always").put("style", 2).put("key", "herald_approve_always");
        buttons.addObject().put("text", "Deny").put("style", 3).put("key", "herald_deny");
        return b;
    }

    private SendResult result(String what, WeComApi.Answer a) {
        if (!a.ok()) {
            return api.failure(what, a);
        }
        String invalid = a.body().path("invaliduser").asText("");
        if (!invalid.isBlank()) {
            return SendResult.failed("wecom - " + what + ": WeCom did not deliver to " + WeComEvents.clip(invalid)
                    + " (not a member, or outside the app's visible range)", false);
        }
        String id = a.body().path("msgid").asText("");
        return SendResult.sent(id.isEmpty() ? null : id);
    }

    /** The caption first (as a text), then the file: uploaded to {@code media/upload} and sent as an image, video or file. */
    private SendResult sendFile(OutboundMessage m, String to) throws IOException {
        OutboundFile f = m.file();
        byte[] bytes;
        try {
            bytes = f.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            return SendResult.failed("wecom - " + e.getMessage(), false);
        }
        String mime = f.mimeType().toLowerCase(Locale.ROOT);
        String type = mediaType(mime, bytes.length);
        WeComApi.Answer up = api.upload(type, f.name(), mime, bytes);
        String mediaId = up.ok() ? up.body().path("media_id").asText("") : "";
        if (!up.ok() || mediaId.isEmpty()) {
            return up.ok() ? SendResult.failed("wecom - uploading " + f.name() + ": WeCom answered no media_id", true)
                    : api.failure("uploading " + f.name(), up);
        }
        if (!m.text().isBlank()) {
            SendResult caption = result("sending the caption of " + f.name(), api.send(body(
                    new OutboundMessage(m.target(), m.text(), MessageKind.REPLY, null, m.correlationId(), 1, 1), to)));
            if (!caption.success()) {
                return caption;
            }
        }
        ObjectNode b = base(to, type);
        b.putObject(type).put("media_id", mediaId);
        return result("sending the file " + f.name(), api.send(b));
    }

    /** How WeCom shows a file: JPG/PNG up to 10 MB as an image, MP4 up to 10 MB as a video, AMR up to 2 MB as voice, else a file. */
    static String mediaType(String mime, long size) {
        if (Set.of("image/jpeg", "image/png").contains(mime) && size <= MAX_IMAGE_BYTES) {
            return "image";
        }
        if (mime.equals("video/mp4") && size <= MAX_IMAGE_BYTES) {
            return "video";
        }
        if (mime.equals("audio/amr") && size <= 2L * 1024 * 1024) {
            return "voice";
        }
        return "file";
    }

    /** The bytes of a message's media, by its MediaId through {@code media/get} on api_base (a PicUrl is never followed). */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        String id = PlatformIds.clean(ref.ref());
        if (id == null || !id.matches("[A-Za-z0-9_.@:=+/-]{1,256}") || id.contains("..")) {
            throw new IOException("wecom - " + ref.kind() + " has no usable MediaId");
        }
        Fetched f = api.media(id, maxBytes);
        return new Fetched(f.bytes(), ref.mimeType() != null ? ref.mimeType() : f.mimeType());
    }

    /**
     * Hands one message to the gateway. A button press is a command, which the gateway answers inline without storing it,
     * so its dedupe key (WeCom: FromUserName + CreateTime for events) is kept here, in the store's platform state (the
     * last {@value #RECENT_PRESSES} presses): WeCom's retry of a press is dropped, on any node and after a restart.
     */
    private Admission receive(MessageEvent event) {
        InboundSink s = sink;
        if (s == null) {
            return Admission.REJECTED_STOPPING;
        }
        boolean press = event.messageId().startsWith(WeComEvents.CARD_PREFIX);
        try {
            if (press && recentPresses().contains(event.messageId())) {
                log.info("wecom - button press {} was delivered before; dropped", event.messageId());
                return Admission.DUPLICATE;
            }
            Admission a = s.accept(event);
            if (press && a != Admission.REJECTED_STOPPING && a != Admission.REJECTED_UNAVAILABLE) {
                notePress(event.messageId());
            }
            return a;
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("wecom - the gateway failed to take message {}; answered 503 so that WeCom delivers it again", event.messageId(), e);
            }
            return Admission.REJECTED_UNAVAILABLE;
        }
    }

    private java.util.List<String> recentPresses() {
        return state.get(PLATFORM, PRESSES_KEY).map(v -> java.util.List.of(v.split(" "))).orElse(java.util.List.of());
    }

    private synchronized void notePress(String id) {
        java.util.List<String> ids = new java.util.ArrayList<>(recentPresses());
        ids.add(id);
        while (ids.size() > RECENT_PRESSES) {
            ids.removeFirst();
        }
        state.put(PLATFORM, java.util.Map.of(PRESSES_KEY, String.join(" ", ids)));
    }

    @Override
    public void close() {
        sink = null;
        api.close();
    }
}
