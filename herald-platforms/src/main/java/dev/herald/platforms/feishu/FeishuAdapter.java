package dev.herald.platforms.feishu;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Feishu (飞书) / Lark app bot ({@code feishu}): events arrive over the long connection Herald opens
 * ({@link FeishuLongConnection}, websocket mode) or on Herald's request URL ({@link FeishuCallback}, decrypted and
 * signature-checked by {@link FeishuCrypto}, webhook mode), and are read by {@link FeishuEvents};
 * answers go out through the IM API ({@link FeishuApi}) as a rich-text {@code post} rendered from Markdown or as
 * {@code text} ({@link FeishuText}): into a thread as a reply to its root message, the first part of an answer in a group
 * as a reply to the question, else as a new message to the chat. Files are uploaded and sent as an image or file
 * message; approval questions go as an interactive card with Approve / Always / Deny buttons, whose presses come back as
 * {@code card.action.trigger} callbacks and act as the typed command.
 *
 * <p>Every send carries a {@code uuid} named by the outbox's idempotency key of the part (the same for every attempt,
 * after a crash too); the platform sends at most one message per uuid within an hour, so a part resent after a crash
 * within that hour is not a second message (exactly once within the hour; at least once after it). Any node can receive
 * and send (each caches its own token): {@link Capabilities.Delivery#ANY_NODE}; with several long connections for one
 * app the platform gives each event to one of them. In both modes the store drops a redelivered message by its
 * message_id, so an event delivered again (after a 503 or a code 500 answer, or after a restart) is answered once.
 */
public final class FeishuAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(FeishuAdapter.class);

    public static final Platform PLATFORM = Platform.of("feishu");
    /** Files the platform takes: 30 MB. */
    public static final long MAX_FILE_BYTES = 30L * 1024 * 1024;
    /** Images: 10 MB; larger ones go as files. */
    static final long MAX_IMAGE_BYTES = 10L * 1024 * 1024;
    static final int MAX_CARD_TEXT = 4000;
    private static final Set<String> IMAGE_TYPES = Set.of("image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/tiff");

    private static final int RECENT_PRESSES = 64;
    private static final String PRESSES_KEY = "recent_card_presses";
    private static final String CHAT_TYPE_KEY = "chat_type:";

    private final FeishuSettings settings;
    private final PlatformState state;
    private final FeishuApi api;
    private final FeishuCallback callback;
    private final FeishuLongConnection longConnection;
    private final java.net.http.HttpClient wsClient;
    private final FeishuEvents events;
    private final dev.herald.platforms.common.FirstAttempt firstAttempt = new dev.herald.platforms.common.FirstAttempt();
    private final java.time.Duration connectTimeout;
    private final Capabilities capabilities;
    private final Map<String, ChatType> chatTypes = new ConcurrentHashMap<>();
    private final Clock clock;
    private final java.time.Duration botLookup;
    private volatile String botOpenId;
    private volatile java.time.Instant nextBotLookup = java.time.Instant.EPOCH;
    private volatile InboundSink sink;

    FeishuAdapter(FeishuSettings settings, FeishuSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.state = Objects.requireNonNull(state, "state");
        this.api = new FeishuApi(settings, timing, clock);
        this.clock = clock;
        this.botLookup = timing.botLookup();
        this.connectTimeout = timing.connectTimeout();
        String key = settings.encryptKeyValue();
        this.events = new FeishuEvents(PLATFORM, settings.requireMention(), this::botOpenId);
        if (settings.websocket()) {
            this.callback = null;
            this.wsClient = java.net.http.HttpClient.newBuilder().connectTimeout(timing.connectTimeout()).build();
            this.longConnection = new FeishuLongConnection(api, timing, wsClient, new Connection());
        } else {
            this.callback = new FeishuCallback(key == null ? null : new FeishuCrypto(key), settings.verificationTokenValue(), events, clock,
                    timing.timestampWindow(), this::receive);
            this.wsClient = null;
            this.longConnection = null;
        }
        boolean md = settings.markdown();
        this.capabilities = new Capabilities(true, false, false, true, false, true, true, false, FeishuText.MAX_CONTENT_BYTES,
                new TextFormat(md ? "feishu-post" : "plain", text -> FeishuText.bytes(text, md)), Capabilities.Delivery.ANY_NODE, MAX_FILE_BYTES);
    }

    /** Serves the request URL in webhook mode; the long connection needs no route. */
    void serveOn(InboundHttp http) {
        if (callback != null) {
            callback.serveOn(http);
        }
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /**
     * Fetches a tenant access token and the bot's open_id: a refused secret stops the start naming the keys. In websocket
     * mode it then opens the long connection and returns once the first attempt is over.
     */
    @Override
    public void start(InboundSink inboundSink) throws InterruptedException {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "fetching a tenant access token");
        try {
            api.token();
            lookUpBot();
        } catch (FeishuApi.TokenRefused e) {
            inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "tenant access token refused");
            throw new IllegalStateException("feishu - the open platform refused a tenant access token for " + settings.appId() + " ("
                    + e.answer.describe() + "); check platforms.feishu.app_id and platforms.feishu.app_secret");
        } catch (IOException e) {
            log.warn("feishu - the open platform is not reachable now ({}); serving the callback, sends are retried", api.describe(e));
        }
        sink = inboundSink;
        if (longConnection == null) {
            inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "callback at " + InboundHttp.pathOf(PLATFORM, "events"));
            return;
        }
        log.info("feishu - receiving events over the long connection ({})", settings);
        longConnection.start();
        if (!firstAttempt.await(connectTimeout.multipliedBy(3), this::close)) {
            log.warn("feishu - the long connection is not open yet; still connecting in the background");
        }
    }

    /** One event from the long connection: read and handed on as a webhook event is; its answer code for the platform. */
    private FeishuLongConnection.Answer onLongConnectionEvent(byte[] json) {
        com.fasterxml.jackson.databind.JsonNode root;
        try {
            root = JsonHttp.JSON.readTree(json);
        } catch (IOException e) {
            root = null;
        }
        if (root == null || !root.isObject()) {
            log.warn("feishu - a long-connection event that is not a JSON object ({} bytes); answered 400, nothing stored", json.length);
            return new FeishuLongConnection.Answer(400, null);
        }
        FeishuCallback.Handled h = FeishuCallback.handle(root, events, clock, this::receive);
        if (!h.taken()) {
            return new FeishuLongConnection.Answer(500, null);
        }
        return new FeishuLongConnection.Answer(200, h.answer().equals("{}") ? null : h.answer());
    }

    /** The long connection's events and state changes. */
    private final class Connection implements FeishuLongConnection.Handler {
        @Override
        public FeishuLongConnection.Answer event(byte[] json) {
            return onLongConnectionEvent(json);
        }

        @Override
        public void connection(ConnectionState state, String detail) {
            InboundSink s = sink;
            if (s != null) {
                s.connectionChanged(PLATFORM, state, detail);
            }
            firstAttempt.reported(state);
        }

        @Override
        public void failed(String message) {
            InboundSink s = sink;
            if (s != null) {
                s.connectionChanged(PLATFORM, ConnectionState.STOPPED, message);
            }
            firstAttempt.gaveUp(message);
        }
    }

    /** Asks {@code bot/v3/info} for the bot's open_id (for mention gating); a failure is logged and asked again later. */
    private void lookUpBot() throws IOException {
        nextBotLookup = clock.instant().plus(botLookup);
        FeishuApi.Answer info = api.botInfo();
        String id = info.body().path("bot").path("open_id").asText("");
        if (info.ok() && FeishuEvents.OPEN_ID.matcher(id).matches()) {
            botOpenId = id;
            log.info("feishu - sending as {} (open_id {}) through {}", FeishuEvents.clip(info.body().path("bot").path("app_name").asText("?")),
                    id, settings.apiUri());
        } else {
            log.warn("feishu - the bot info request answered {}; group messages are not read until Herald knows the bot's open_id "
                    + "(asked again on a message, at most once a minute)", info.describe());
        }
    }

    /**
     * The bot's open_id, or null while unknown; then a message starts one lookup in the background, at most once per
     * {@code botLookup}, so that the next group messages are read.
     */
    private String botOpenId() {
        String id = botOpenId;
        if (id == null && sink != null && clock.instant().isAfter(nextBotLookup)) {
            nextBotLookup = clock.instant().plus(botLookup);
            Thread.ofVirtual().name("feishu-bot-info").start(() -> {
                try {
                    lookUpBot();
                } catch (IOException e) {
                    log.warn("feishu - the bot info request failed ({}); asked again later", api.describe(e));
                }
            });
        }
        return id;
    }

    /** Sends one part: text or post, approval buttons as a card, or a file (uploaded, then sent by its key). */
    @Override
    public SendResult send(OutboundMessage m) {
        String to = m.target().chatId();
        if (!FeishuEvents.CHAT_ID.matcher(to).matches()) {
            return SendResult.failed("feishu - \"" + FeishuEvents.clip(to) + "\" is not a chat_id (oc_...)", false);
        }
        try {
            if (m.file() != null) {
                return sendFile(m);
            }
            if (m.kind() == MessageKind.PROMPT && m.text().contains("/approve") && m.text().length() <= MAX_CARD_TEXT) {
                return post(m, "interactive", card(m), uuid(m, "card"), "sending an approval card");
            }
            boolean md = settings.markdown();
            return post(m, FeishuText.type(md), FeishuText.content(m.text(), md), uuid(m, "text"), "sending a message");
        } catch (IOException e) {
            return SendResult.failed("feishu - sending a message: " + api.describe(e), true);
        }
    }

    /** Into the thread (a reply to its root), as a reply to the question (first part, in a group), or new to the chat. */
    private SendResult post(OutboundMessage m, String type, String content, String uuid, String what) throws IOException {
        FeishuApi.Answer a;
        String thread = m.target().threadId();
        if (thread != null && FeishuEvents.MESSAGE_ID.matcher(thread).matches()) {
            a = api.reply(thread, type, content, true, uuid);
        } else if (m.part() == 1 && m.replyToMessageId() != null && FeishuEvents.MESSAGE_ID.matcher(m.replyToMessageId()).matches()
                && chatType(m.target().chatId()) == ChatType.GROUP) {
            a = api.reply(m.replyToMessageId(), type, content, false, uuid);
        } else {
            a = api.send(m.target().chatId(), type, content, uuid);
        }
        if (!a.ok()) {
            return api.failure(what, a);
        }
        String id = a.data().path("message_id").asText("");
        return SendResult.sent(id.isEmpty() ? null : id);
    }

    /**
     * The uuid of one send: a UUID named by the outbox's idempotency key of the part and what is sent ({@code what}: the
     * text, a card, a caption, a file), so every attempt of it carries the same; random for a message that is not recorded.
     */
    static String uuid(OutboundMessage m, String what) {
        return m.idempotencyKey() == null ? UUID.randomUUID().toString()
                : UUID.nameUUIDFromBytes(("herald feishu " + what + " " + m.idempotencyKey()).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /** An interactive card: the question as lark_md and three buttons whose value names the command and the chat it is for. */
    private String card(OutboundMessage m) {
        ObjectNode c = JsonHttp.JSON.createObjectNode();
        c.putObject("config").put("wide_screen_mode", true);
        ObjectNode header = c.putObject("header").put("template", "orange");
        header.putObject("title").put("tag", "plain_text").put("content", "Approval needed");
        ArrayNode elements = c.putArray("elements");
        elements.addObject().put("tag", "div").putObject("text").put("tag", "lark_md").put("content", FeishuText.render(m.text(), true));
        ArrayNode actions = elements.addObject().put("tag", "action").putArray("actions");
        String chatType = chatType(m.target().chatId()) == ChatType.GROUP ? "group" : "p2p";
        String[][] buttons = {{"Approve", "primary", "approve"}, {"Always", "default", "approve_always"}, {"Deny", "danger", "deny"}};
        for (String[] b : buttons) {
            ObjectNode button = actions.addObject().put("tag", "button").put("type", b[1]);
            button.putObject("text").put("tag", "plain_text").put("content", b[0]);
            ObjectNode value = button.putObject("value").put("herald", b[2]).put("chat_type", chatType);
            if (m.target().threadId() != null) {
                value.put("thread", m.target().threadId());
            }
        }
        return c.toString();
    }

    /** The caption first (as text), then the file: an image up to 10 MB through /images, anything else through /files. */
    private SendResult sendFile(OutboundMessage m) throws IOException {
        OutboundFile f = m.file();
        byte[] bytes;
        try {
            bytes = f.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            return SendResult.failed("feishu - " + e.getMessage(), false);
        }
        String mime = f.mimeType().toLowerCase(Locale.ROOT);
        boolean image = IMAGE_TYPES.contains(mime) && bytes.length <= MAX_IMAGE_BYTES;
        FeishuApi.Answer up = image ? api.uploadImage(f.name(), mime, bytes) : api.uploadFile(fileType(mime, f.name()), f.name(), mime, bytes);
        String key = up.data().path(image ? "image_key" : "file_key").asText("");
        if (!up.ok() || key.isEmpty()) {
            return up.ok() ? SendResult.failed("feishu - uploading " + f.name() + ": the platform answered no key", true)
                    : api.failure("uploading " + f.name(), up);
        }
        if (!m.text().isBlank()) {
            boolean md = settings.markdown();
            SendResult caption = post(m, FeishuText.type(md), FeishuText.content(m.text(), md), uuid(m, "caption"),
                    "sending the caption of " + f.name());
            if (!caption.success()) {
                return caption;
            }
        }
        ObjectNode content = JsonHttp.JSON.createObjectNode().put(image ? "image_key" : "file_key", key);
        OutboundMessage rest = new OutboundMessage(m.target(), "", m.kind(), m.replyToMessageId(), m.correlationId(), m.parts(), m.parts(),
                m.idempotencyKey(), f);
        return post(rest, image ? "image" : "file", content.toString(), uuid(m, "file"), "sending the file " + f.name());
    }

    /** The file_type of an upload: opus, mp4, pdf, doc, xls, ppt, else stream. */
    static String fileType(String mime, String name) {
        String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
        if (mime.equals("audio/opus") || mime.equals("audio/ogg") || n.endsWith(".opus")) {
            return "opus";
        }
        if (mime.equals("video/mp4") || n.endsWith(".mp4")) {
            return "mp4";
        }
        if (mime.equals("application/pdf") || n.endsWith(".pdf")) {
            return "pdf";
        }
        if (n.endsWith(".doc") || n.endsWith(".docx")) {
            return "doc";
        }
        if (n.endsWith(".xls") || n.endsWith(".xlsx")) {
            return "xls";
        }
        if (n.endsWith(".ppt") || n.endsWith(".pptx")) {
            return "ppt";
        }
        return "stream";
    }

    /** The bytes of a message's image or file by its reference {@code <type>:<message_id>:<key>}, from the base only. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        String[] p = ref.ref().split(":", -1);
        if (p.length != 3 || !(p[0].equals("image") || p[0].equals("file")) || !FeishuEvents.MESSAGE_ID.matcher(p[1]).matches()
                || !FeishuEvents.KEY.matcher(p[2]).matches()) {
            throw new IOException("feishu - " + ref.kind() + " has no usable message id and key");
        }
        Fetched f = api.resource(p[1], p[2], p[0], maxBytes);
        return new Fetched(f.bytes(), ref.mimeType() != null ? ref.mimeType() : f.mimeType());
    }

    /** The chat's type as last seen on a message in it (memory, then the store); DM when unknown. */
    private ChatType chatType(String chatId) {
        ChatType t = chatTypes.get(chatId);
        if (t == null) {
            try {
                t = state.get(PLATFORM, CHAT_TYPE_KEY + chatId).map(v -> v.equals("group") ? ChatType.GROUP : ChatType.DM).orElse(ChatType.DM);
                chatTypes.put(chatId, t);
            } catch (RuntimeException e) {
                return ChatType.DM;
            }
        }
        return t;
    }

    private void noteChatType(MessageEvent event) {
        String chatId = event.source().chatId();
        ChatType t = event.source().chatType() == ChatType.GROUP ? ChatType.GROUP : ChatType.DM;
        if (chatTypes.get(chatId) != t) {
            state.put(PLATFORM, Map.of(CHAT_TYPE_KEY + chatId, t == ChatType.GROUP ? "group" : "p2p"));
            chatTypes.put(chatId, t);
        }
    }

    /**
     * Hands one message to the gateway. A card press is a command, which the gateway answers inline without storing it, so
     * its dedupe key (the callback's event_id) is kept here, in the store's platform state (the last
     * {@value #RECENT_PRESSES} presses): a redelivered press is dropped, on any node and after a restart.
     */
    private Admission receive(MessageEvent event) {
        InboundSink s = sink;
        if (s == null) {
            return Admission.REJECTED_STOPPING;
        }
        boolean press = event.messageId().startsWith(FeishuEvents.CARD_PREFIX);
        try {
            if (press && recentPresses().contains(event.messageId())) {
                log.info("feishu - card press {} was delivered before; dropped", event.messageId());
                return Admission.DUPLICATE;
            }
            if (!press) {
                noteChatType(event);
            }
            Admission a = s.accept(event);
            if (press && a != Admission.REJECTED_STOPPING && a != Admission.REJECTED_UNAVAILABLE) {
                notePress(event.messageId());
            }
            return a;
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("feishu - the gateway failed to take message {}; answered 503 so that the platform delivers it again", event.messageId(), e);
            }
            return Admission.REJECTED_UNAVAILABLE;
        }
    }

    private List<String> recentPresses() {
        return state.get(PLATFORM, PRESSES_KEY).map(v -> List.of(v.split(" "))).orElse(List.of());
    }

    private synchronized void notePress(String id) {
        List<String> ids = new ArrayList<>(recentPresses());
        ids.add(id);
        while (ids.size() > RECENT_PRESSES) {
            ids.removeFirst();
        }
        state.put(PLATFORM, Map.of(PRESSES_KEY, String.join(" ", ids)));
    }

    @Override
    public void stopReceiving() {
        if (longConnection != null) {
            longConnection.close();
        }
    }

    @Override
    public void close() {
        if (longConnection != null) {
            longConnection.close();
            wsClient.close();
        }
        sink = null;
        api.close();
    }
}
