package dev.herald.platforms.dingtalk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.FirstAttempt;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlainDialect;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DingTalk (钉钉) robot ({@code dingtalk}): robot messages arrive over the Stream WebSocket Herald opens
 * ({@link DingTalkStream}, stream mode) or as signed POSTs to Herald ({@link DingTalkCallback}, http mode), are read by
 * {@link DingTalkMessages}, and are answered through the message's
 * {@code sessionWebhook} while it is valid, else through the robot send API ({@link DingTalkApi}), as markdown
 * ({@code sampleMarkdown}) or text.
 *
 * <p>Acknowledgement: a robot message is acknowledged (a Stream ack, or HTTP 200) only after {@link InboundSink#accept}
 * returned (stored, refused, answered, or a duplicate). When the store cannot write, or Herald is stopping, it is not
 * acknowledged (no ack, or HTTP 503), so that DingTalk may push it again; the gateway's durable dedupe by {@code msgId}
 * drops a redelivery of a message it has. Messages Herald ignores are acknowledged at once. Stream mode holds one
 * connection ({@link Capabilities.Delivery#SINGLE_CONNECTION}); in http mode every node receives
 * ({@link Capabilities.Delivery#ANY_NODE}).
 *
 * <p>Session webhooks live in this process's memory only (they expire within hours anyway): after a restart, or on
 * another node, replies go through the send API. Approvals are typed ({@code /approve}); DingTalk's interactive cards
 * need a card template registered in the developer console, which Herald does not assume.
 */
public final class DingTalkAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(DingTalkAdapter.class);

    public static final Platform PLATFORM = Platform.of("dingtalk");
    /** Herald splits below DingTalk's message limit (about 5,000 characters for markdown) with a margin. */
    public static final int MAX_TEXT = 4000;
    /** The largest file Herald sends: DingTalk's media/upload takes files of up to 20 MB. */
    public static final long MAX_FILE_BYTES = 20L * 1024 * 1024;
    /** A webhook this close to its expiry is not used any more. */
    static final Duration WEBHOOK_MARGIN = Duration.ofSeconds(30);
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new PlainDialect());

    private record Hook(String url, Instant until) {
    }

    private final DingTalkSettings settings;
    private final DingTalkSettings.Timing timing;
    private final Clock clock;
    private final HttpClient http;
    final DingTalkApi api;
    private final DingTalkMessages messages;
    private final DingTalkStream stream;
    private final DingTalkCallback callback;
    private final Capabilities capabilities;
    private final FirstAttempt firstAttempt = new FirstAttempt();
    private final Map<String, Hook> hooks = new ConcurrentHashMap<>();
    private volatile InboundSink sink;

    public DingTalkAdapter(DingTalkSettings settings, DingTalkSettings.Timing timing, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.http = HttpClient.newBuilder().connectTimeout(timing.connectTimeout()).build();
        this.api = new DingTalkApi(settings, timing, clock);
        this.messages = new DingTalkMessages(settings, clock);
        this.stream = settings.http() ? null : new DingTalkStream(timing, api, http, new Events());
        this.callback = settings.http() ? new DingTalkCallback(settings.secretValue(), clock, timing.timestampWindow(), this::take) : null;
        this.capabilities = new Capabilities(true, false, false, false, false, false, false, false, MAX_TEXT,
                settings.markdown() ? TextFormat.MARKDOWN : new TextFormat("plain", t -> PLAIN.render(t).length()),
                settings.http() ? Capabilities.Delivery.ANY_NODE : Capabilities.Delivery.SINGLE_CONNECTION).withFiles(MAX_FILE_BYTES, false);
    }

    public DingTalkAdapter(DingTalkSettings settings, Clock clock) {
        this(settings, DingTalkSettings.Timing.defaults(), clock);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /** Serves the robot callback in http mode; Stream mode needs no route. */
    void serveOn(dev.herald.core.platform.InboundHttp routes) {
        if (callback != null) {
            callback.serveOn(routes);
        }
    }

    @Override
    public void start(InboundSink inboundSink) throws Exception {
        this.sink = Objects.requireNonNull(inboundSink, "sink");
        if (callback != null) {
            startHttp(inboundSink);
            return;
        }
        log.info("dingtalk - connecting in stream mode ({})", settings);
        stream.start();
        if (!firstAttempt.await(timing.connectTimeout().multipliedBy(3), this::close)) {
            log.warn("dingtalk - not connected yet; still connecting in the background");
        }
    }

    /** HTTP mode: an access token checks the credentials (a refusal stops the start); then the callback is served. */
    private void startHttp(InboundSink inboundSink) {
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "fetching an access token");
        try {
            api.token();
        } catch (DingTalkApi.Refused e) {
            inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "access token refused");
            throw new IllegalStateException(e.getMessage());
        } catch (IOException e) {
            log.warn("dingtalk - DingTalk is not reachable now ({}); serving the robot callback, sends are retried", api.describe(e));
        }
        log.info("dingtalk - receiving robot messages by HTTP at {} ({})", dev.herald.core.platform.InboundHttp.pathOf(PLATFORM, DingTalkCallback.PATH),
                settings);
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "callback at "
                + dev.herald.core.platform.InboundHttp.pathOf(PLATFORM, DingTalkCallback.PATH));
    }

    /** Through the chat's session webhook while it is valid, else through the robot send API. */
    @Override
    public SendResult send(OutboundMessage m) {
        if (m.file() != null) {
            return sendFile(m);
        }
        String chat = m.target().chatId();
        String text = settings.markdown() ? m.text() : PLAIN.render(m.text());
        if (text.isBlank()) {
            text = m.text().isBlank() ? "…" : m.text();
        }
        Hook hook = hooks.get(chat);
        if (hook != null && clock.instant().plus(WEBHOOK_MARGIN).isBefore(hook.until())) {
            try {
                DingTalkApi.Answer a = api.webhook(hook.url(), webhookBody(text));
                if (a.ok() && a.body().path("errcode").asInt(-1) == 0) {
                    return SendResult.sent(null);
                }
                log.info("dingtalk - the session webhook of chat {} answered {} (errcode {}); sending through the robot API", chat,
                        a.status(), a.body().path("errcode").asText("?"));
            } catch (IOException e) {
                log.info("dingtalk - the session webhook of chat {} failed ({}); sending through the robot API", chat, api.describe(e));
            }
            hooks.remove(chat, hook);
        }
        boolean group = chat.startsWith("cid");
        ObjectNode param = JsonHttp.JSON.createObjectNode();
        String key;
        if (settings.markdown()) {
            key = "sampleMarkdown";
            param.put("title", title(text)).put("text", text);
        } else {
            key = "sampleText";
            param.put("content", text);
        }
        try {
            DingTalkApi.Answer a = api.robotSend(group, group ? DingTalkMessages.conversationId(chat) : chat, key, param);
            if (!a.ok()) {
                return api.failure("sending to " + (group ? "group " : "user ") + chat, a);
            }
            if (!group && a.body().path("invalidStaffIdList").size() > 0) {
                return SendResult.failed("dingtalk - user " + chat + " cannot be reached by the robot (invalidStaffIdList)", false);
            }
            String key2 = a.body().path("processQueryKey").asText("");
            return SendResult.sent(key2.isEmpty() ? null : key2);
        } catch (DingTalkApi.Refused e) {
            return SendResult.failed(e.getMessage(), false);
        } catch (IOException e) {
            return SendResult.failed("dingtalk - sending to " + chat + ": " + api.describe(e), true);
        }
    }

    /**
     * The caption first (as a message), then the file: uploaded to {@code media/upload} and sent through the send API
     * (session webhooks take no files) as {@code sampleImageMsg} for a JPEG, PNG, GIF or BMP picture, else as
     * {@code sampleFile}.
     */
    private SendResult sendFile(OutboundMessage m) {
        OutboundFile f = m.file();
        String chat = m.target().chatId();
        byte[] bytes;
        try {
            bytes = f.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            return SendResult.failed("dingtalk - " + e.getMessage(), false);
        }
        String mime = f.mimeType() == null ? "application/octet-stream" : f.mimeType().toLowerCase(java.util.Locale.ROOT);
        boolean image = java.util.Set.of("image/jpeg", "image/png", "image/gif", "image/bmp").contains(mime);
        try {
            DingTalkApi.Answer up = api.upload(image ? "image" : "file", f.name(), mime, bytes);
            String mediaId = up.body().path("media_id").asText("");
            if (!up.ok() || up.body().path("errcode").asInt(0) != 0 || mediaId.isEmpty()) {
                return SendResult.failed("dingtalk - uploading " + f.name() + ": errcode " + up.body().path("errcode").asText("?") + " "
                        + DingTalkMessages.clip(up.body().path("errmsg").asText(""), 200), up.status() >= 500);
            }
            if (!m.text().isBlank()) {
                SendResult caption = send(new OutboundMessage(m.target(), m.text(), MessageKind.REPLY, null, m.correlationId(), 1, 1));
                if (!caption.success()) {
                    return caption;
                }
            }
            boolean group = chat.startsWith("cid");
            ObjectNode param = JsonHttp.JSON.createObjectNode();
            String key;
            if (image) {
                key = "sampleImageMsg";
                param.put("photoURL", mediaId);
            } else {
                key = "sampleFile";
                String name = f.name();
                int dot = name.lastIndexOf('.');
                param.put("mediaId", mediaId).put("fileName", name).put("fileType", dot > 0 ? name.substring(dot + 1) : "file");
            }
            DingTalkApi.Answer a = api.robotSend(group, group ? DingTalkMessages.conversationId(chat) : chat, key, param);
            if (!a.ok()) {
                return api.failure("sending the file " + f.name(), a);
            }
            return SendResult.sent(a.body().path("processQueryKey").asText(null));
        } catch (DingTalkApi.Refused e) {
            return SendResult.failed(e.getMessage(), false);
        } catch (IOException e) {
            return SendResult.failed("dingtalk - sending the file " + f.name() + ": " + api.describe(e), true);
        }
    }

    private ObjectNode webhookBody(String text) {
        ObjectNode b = JsonHttp.JSON.createObjectNode();
        if (settings.markdown()) {
            b.put("msgtype", "markdown").putObject("markdown").put("title", title(text)).put("text", text);
        } else {
            b.put("msgtype", "text").putObject("text").put("content", text);
        }
        return b;
    }

    /** A markdown message's title (what the notification shows): its first line without marks, at most 20 characters. */
    static String title(String text) {
        String first = PLAIN.render(text).strip().lines().findFirst().orElse("").strip();
        if (first.isEmpty()) {
            return "Herald";
        }
        return first.codePointCount(0, first.length()) <= 20 ? first : first.substring(0, first.offsetByCodePoints(0, 19)) + "…";
    }

    /** A file's bytes by its downloadCode, from DingTalk's file hosts only. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        Fetched f = api.download(ref.ref(), maxBytes);
        return new Fetched(f.bytes(), ref.mimeType() != null ? ref.mimeType() : f.mimeType());
    }

    @Override
    public void stopReceiving() {
        if (stream != null) {
            stream.close();
        }
    }

    @Override
    public void close() {
        if (stream != null) {
            stream.close();
        }
        sink = null;
        http.close();
    }

    /** Handles one robot message on its reader thread; acknowledges it as the class comment says. */
    private void onRobotMessage(JsonNode data, Runnable ack) {
        if (take(data)) {
            ack.run();
        }
    }

    /** Hands one robot message to the gateway; true when it may be acknowledged (taken, refused, ignored, a duplicate). */
    private boolean take(JsonNode data) {
        Optional<DingTalkMessages.Inbound> in = messages.normalise(data);
        if (in.isEmpty()) {
            return true;
        }
        DingTalkMessages.Inbound i = in.get();
        MessageEvent e = i.event();
        if (i.webhook() != null && api.webhookAllowed(i.webhook())) {
            hooks.put(e.source().chatId(), new Hook(i.webhook(), i.webhookUntil()));
        } else if (i.webhook() != null) {
            log.warn("dingtalk - message {} names a session webhook on a host that is not DingTalk's; not used", e.messageId());
        }
        InboundSink s = sink;
        if (s == null) {
            return false;
        }
        Admission a;
        try {
            a = s.accept(e);
        } catch (RuntimeException ex) {
            if (!StoreException.isOutage(ex)) {
                log.warn("dingtalk - the gateway failed to take message {}; not acknowledged", e.messageId(), ex);
            } else {
                log.debug("dingtalk - message {} not taken: the store cannot write; not acknowledged", e.messageId());
            }
            return false;
        }
        if (a == Admission.REJECTED_UNAVAILABLE || a == Admission.REJECTED_STOPPING) {
            log.info("dingtalk - message {} not taken ({}); not acknowledged, so DingTalk may push it again", e.messageId(), a);
            return false;
        }
        log.debug("dingtalk - message {}: {}", e.messageId(), a);
        return true;
    }

    private final class Events implements DingTalkStream.Handler {
        @Override
        public void robotMessage(JsonNode data, Runnable ack) {
            onRobotMessage(data, ack);
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
}
