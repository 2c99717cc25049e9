package dev.herald.platforms.qqbot;

import com.fasterxml.jackson.databind.JsonNode;
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
import dev.herald.core.platform.TextFormat;
import dev.herald.core.retry.Backoff;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.ChatMarkdown;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.FirstAttempt;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlainDialect;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The QQ open platform (bot API v2) as a Herald platform ({@code qqbot}): the WebSocket gateway for one-to-one and group
 * @-messages ({@link QqBotGateway}), passive replies over REST ({@link QqBotApi}), and the reply ledger that gives each
 * reply part its {@code msg_id} and {@code msg_seq} ({@link QqBotReplies}).
 *
 * <p>Inbound: one worker thread normalises and hands messages to the gateway in arrival order, first writing the message
 * into the reply ledger; while the store cannot write, a message is held and handed over again (QQ does not redeliver).
 *
 * <p>Outbound: every message in a chat is a passive reply to one of the chat's remembered messages (the one its turn
 * answers, else the newest); outside QQ's window or past its count of replies a part of an answer is refused here, logged,
 * and recorded as undelivered, while a notice (no turn behind it) goes as an active message. A part sent again after a crash carries its first {@code msg_seq}, and QQ's duplicate refusal
 * ({@code 40054005}) is taken as "it went out the first time". A file is uploaded ({@code POST .../files} with
 * {@code file_data}) and sent as a rich-media message ({@code msg_type 7}).
 */
public final class QqBotAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(QqBotAdapter.class);

    public static final Platform PLATFORM = Platform.of("qqbot");
    /** The longest text Herald puts in one message (QQ does not document one; longer replies are split). */
    public static final int MAX_TEXT = 2000;
    /** The largest file Herald uploads (sent inline as base64 in JSON). */
    public static final long MAX_FILE_BYTES = 10L * 1024 * 1024;
    /** The hosts QQ serves attachments from. */
    static final Set<String> MEDIA_HOSTS = Set.of("multimedia.nt.qq.com.cn", "gchat.qpic.cn");
    private static final ChatMarkdown PLAIN = new ChatMarkdown(new PlainDialect());

    private final QqBotSettings settings;
    private final QqBotSettings.Timing timing;
    private final Clock clock;
    private final HttpClient http;
    private final QqBotApi api;
    private final QqBotReplies replies;
    private final QqBotMessages messages;
    private final QqBotGateway gateway;
    private final FileDownload files;
    private final Capabilities capabilities;
    private final ExecutorService inbound = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("qqbot-inbound").factory());
    private final FirstAttempt firstAttempt = new FirstAttempt();
    private volatile InboundSink sink;

    /** An adapter for enabled, validated {@code settings}, keeping its reply ledger in {@code state}. */
    public QqBotAdapter(QqBotSettings settings, QqBotSettings.Timing timing, PlatformState state, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.http = HttpClient.newBuilder().connectTimeout(timing.connectTimeout()).build();
        this.api = new QqBotApi(settings, timing, clock);
        this.replies = new QqBotReplies(Objects.requireNonNull(state, "state"));
        this.messages = new QqBotMessages(clock);
        this.gateway = new QqBotGateway(api, timing, http, new Events());
        Set<String> hosts = new HashSet<>(MEDIA_HOSTS);
        hosts.addAll(FileDownload.hostsOf(settings.apiUri())); // a proxy in front of QQ, or a test's fake
        this.files = new FileDownload("qqbot", hosts, timing.connectTimeout());
        TextFormat format = settings.markdown() ? new TextFormat("qq-markdown", String::length)
                : new TextFormat("plain", text -> PLAIN.render(text).length());
        this.capabilities = new Capabilities(true, false, false, false, false, MAX_TEXT).with(format)
                .with(Capabilities.Delivery.SINGLE_CONNECTION).withFiles(MAX_FILE_BYTES, false);
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
        log.info("qqbot - connecting ({})", settings);
        gateway.start();
        if (!firstAttempt.await(timing.readyTimeout(), this::close)) {
            log.warn("qqbot - not ready after {} ms; still connecting in the background", timing.readyTimeout().toMillis());
        }
    }

    @Override
    public SendResult send(OutboundMessage message) {
        String chat = message.target().chatId();
        String base;
        if (chat.startsWith(QqBotMessages.USER_PREFIX)) {
            base = "/v2/users/" + chat.substring(QqBotMessages.USER_PREFIX.length());
        } else if (chat.startsWith(QqBotMessages.GROUP_PREFIX)) {
            base = "/v2/groups/" + chat.substring(QqBotMessages.GROUP_PREFIX.length());
        } else {
            return SendResult.failed("qqbot - chat " + chat + " is neither user:<openid> nor group:<group_openid>", false);
        }
        Optional<QqBotReplies.Slot> slot;
        try {
            slot = replies.slot(chat, message.correlationId(), message.replyToMessageId(), message.idempotencyKey());
        } catch (RuntimeException e) {
            return SendResult.failed("qqbot - the reply ledger cannot be read or written (" + e.getClass().getSimpleName() + ")", true);
        }
        ObjectNode body = JsonHttp.JSON.createObjectNode();
        if (slot.isPresent()) {
            QqBotReplies.Slot s = slot.get();
            Duration window = chat.startsWith(QqBotMessages.GROUP_PREFIX) ? QqBotReplies.GROUP_WINDOW : QqBotReplies.C2C_WINDOW;
            Duration age = Duration.between(s.receivedAt(), clock.instant());
            String closed = age.compareTo(window) > 0
                    ? "QQ takes a reply to message " + s.msgId() + " only within " + window.toMinutes() + " min of it, and it is "
                            + age.toMinutes() + " min old"
                    : s.seq() > QqBotReplies.MAX_REPLIES
                            ? "QQ takes at most " + QqBotReplies.MAX_REPLIES + " replies to message " + s.msgId() + ", and this would be reply "
                                    + s.seq()
                            : null;
            if (closed != null && message.correlationId() != null) {
                String error = "qqbot - not sent to " + chat + ": " + closed + " (part " + message.part() + " of " + message.parts() + ")";
                log.warn(error);
                return SendResult.failed(error, false);
            }
            if (closed != null) {
                log.info("qqbot - a notice to {} goes as an active message, which QQ limits strictly: {}", chat, closed);
                slot = Optional.empty();
            } else {
                body.put("msg_id", s.msgId());
                body.put("msg_seq", s.seq());
            }
        } else {
            log.info("qqbot - no message to reply to in {}; sending an active message, which QQ limits strictly", chat);
        }
        OutboundFile file = message.file();
        if (file != null) {
            Optional<SendResult> failed = attach(base, file, body);
            if (failed.isPresent()) {
                return failed.get();
            }
            body.put("content", PLAIN.render(message.text()));
        } else if (settings.markdown()) {
            body.put("msg_type", 2);
            body.putObject("markdown").put("content", message.text());
        } else {
            body.put("msg_type", 0);
            body.put("content", PLAIN.render(message.text()));
        }
        QqBotApi.Answer a = api.post(base + "/messages", body);
        if (a.ok()) {
            if (slot.isPresent()) {
                try {
                    replies.sent(chat, slot.get().msgId(), message.idempotencyKey(), a.id());
                } catch (RuntimeException e) {
                    log.debug("qqbot - QQ's id of the part sent to {} not recorded ({})", chat, e.getClass().getSimpleName());
                }
            }
            return SendResult.sent(a.id());
        }
        if (a.duplicate() && slot.isPresent()) {
            if (slot.get().resend()) {
                log.info("qqbot - {} part {} of {}: QQ already has msg_seq {} for message {}; the first attempt went out, nothing sent twice",
                        chat, message.part(), message.parts(), slot.get().seq(), slot.get().msgId());
                return SendResult.sent(slot.get().sentId());
            }
            String error = "qqbot - QQ refused msg_seq " + slot.get().seq() + " for message " + slot.get().msgId() + " in " + chat
                    + " as already used, though Herald had not given it (another Herald using this bot, or a lost ledger)";
            log.warn(error);
            return SendResult.failed(error, false);
        }
        SendResult r = a.failure("the message to " + chat);
        log.warn("{} (part {} of {})", r.error(), message.part(), message.parts());
        return r;
    }

    /** Uploads {@code file} and sets the rich-media fields on {@code body}; a failure to report instead. */
    private Optional<SendResult> attach(String base, OutboundFile file, ObjectNode body) {
        byte[] bytes;
        try {
            bytes = file.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            return Optional.of(SendResult.failed("qqbot - " + e.getMessage(), true));
        }
        ObjectNode upload = JsonHttp.JSON.createObjectNode();
        upload.put("file_type", fileType(file.mimeType()));
        upload.put("file_data", Base64.getEncoder().encodeToString(bytes));
        upload.put("srv_send_msg", false);
        QqBotApi.Answer a = api.post(base + "/files", upload);
        String info = a.body().path("file_info").asText("");
        if (!a.ok() || info.isEmpty()) {
            SendResult r = a.ok() ? SendResult.failed("qqbot - the upload of " + file.name() + " was answered without file_info", false)
                    : a.failure("the upload of " + file.name());
            log.warn(r.error());
            return Optional.of(r);
        }
        body.put("msg_type", 7);
        body.putObject("media").put("file_info", info);
        return Optional.empty();
    }

    /** QQ's file types: 1 image, 2 video, 3 voice (silk), 4 file (not open to bots at the time of writing). */
    static int fileType(String mime) {
        String m = mime == null ? "" : mime.toLowerCase(java.util.Locale.ROOT);
        if (m.startsWith("image/")) {
            return 1;
        }
        if (m.startsWith("video/")) {
            return 2;
        }
        if (m.startsWith("audio/silk")) {
            return 3;
        }
        return 4;
    }

    /** An attachment by its URL, only from QQ's media hosts, size-capped. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        return files.get(ref.ref(), Map.of(), maxBytes, Duration.ofSeconds(30));
    }

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

    private void handle(String type, JsonNode d) {
        Optional<MessageEvent> event = messages.normalise(type, d);
        if (event.isEmpty()) {
            if (!type.equals("READY") && !type.equals("RESUMED") && !type.equals(QqBotMessages.C2C) && !type.equals(QqBotMessages.GROUP)) {
                log.debug("qqbot - {} dispatch not handled", type);
            }
            return;
        }
        MessageEvent e = event.get();
        try {
            Admission a = acceptHolding(e);
            if (a != null) {
                log.debug("qqbot - message {} in {}: {}", e.messageId(), e.source().chatId(), a);
            }
        } catch (RuntimeException ex) {
            log.warn("qqbot - the gateway failed to accept message {} in {}", e.messageId(), e.source().chatId(), ex);
        }
    }

    /** Records {@code e} in the reply ledger and hands it to the gateway, again and again while the store cannot write. */
    private Admission acceptHolding(MessageEvent e) {
        Backoff wait = null;
        while (true) {
            Admission a;
            try {
                replies.received(e.source().chatId(), e.messageId(), e.receivedAt(), e.eventId());
                a = sink.accept(e);
            } catch (RuntimeException ex) {
                if (!StoreException.isOutage(ex)) {
                    throw ex;
                }
                a = Admission.REJECTED_UNAVAILABLE;
            }
            if (a != Admission.REJECTED_UNAVAILABLE) {
                return a;
            }
            if (wait == null) {
                wait = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(5));
                log.info("qqbot - message {} in {} held: the store cannot write now; it is handed over again until it can",
                        e.messageId(), e.source().chatId());
            }
            try {
                Thread.sleep(wait.next());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                log.warn("qqbot - message {} in {} was never stored: the store could not write until the adapter closed",
                        e.messageId(), e.source().chatId());
                return null;
            }
        }
    }

    /** The gateway's reports, moved onto the inbound worker so they keep their order and never block the gateway loop. */
    private final class Events implements QqBotGateway.Handler {
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
            } catch (RejectedExecutionException e) {
                log.debug("qqbot - event after close ignored");
            }
        }
    }
}
