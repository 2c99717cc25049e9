package dev.herald.platforms.matrix;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Matrix as a Herald platform ({@code matrix}): the client-server API's {@code /sync} long poll for events
 * ({@link MatrixSync}), {@code PUT /rooms/{room}/send/m.room.message/{txnId}} for replies, the content repository for
 * files both ways.
 *
 * <p>Exactly once: every reply part's transaction id is derived from its idempotency key (the same for every attempt, after
 * a crash too) and a prefix this store made once; the homeserver answers a repeated transaction id of the same access
 * token with the first event instead of a second one, so a part resent after a crash is one message. Notices without a
 * key get a random transaction id. End-to-end encrypted rooms are not read ({@link MatrixSync} tells the room once).
 *
 * <p>Start-up: {@link #start} returns once the first sign-in and sync attempt is over; refused credentials fail it with
 * a message naming the key, never the token.
 */
public final class MatrixAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(MatrixAdapter.class);

    public static final Platform PLATFORM = Platform.of("matrix");
    /**
     * The most one message's body and formatted body may weigh together, in UTF-8 bytes: a homeserver refuses events over
     * 64 KiB, and this leaves room for the rest of the event; longer replies are split by the gateway.
     */
    public static final int MAX_TEXT_BYTES = 32_000;
    /** Synapse's default upload limit ({@code max_upload_size: 50M}); a homeserver with a lower one refuses with 413. */
    public static final long MAX_FILE_BYTES = 50L * 1024 * 1024;
    private static final Capabilities CAPABILITIES = new Capabilities(true, true, false, true, false, MAX_TEXT_BYTES)
            .with(new TextFormat("matrix-html", MatrixHtml::eventBytes))
            .with(Capabilities.Delivery.SINGLE_CONNECTION).withFiles(MAX_FILE_BYTES, false);
    private static final Duration TYPING = Duration.ofSeconds(30);
    static final String TXN_PREFIX = "txn_prefix";

    private final MatrixSettings settings;
    private final MatrixSettings.Timing timing;
    private final PlatformState state;
    private final MatrixApi api;
    private final MatrixEvents events;
    private final FileDownload files;
    private volatile MatrixSync sync;
    private volatile String txnPrefix;

    /** An adapter for enabled, validated {@code settings}, whose sync token and password-login token live in {@code state}. */
    public MatrixAdapter(MatrixSettings settings, MatrixSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = settings;
        this.timing = timing;
        this.state = state;
        this.api = new MatrixApi(settings.homeserverUri().toString(), timing.requestTimeout(), null,
                settings.password().reveal().orElse(null));
        this.events = new MatrixEvents(settings.user(), settings.requireMention(), clock);
        this.files = new FileDownload("matrix", Set.copyOf(FileDownload.hostsOf(settings.homeserverUri())), Duration.ofSeconds(10));
    }

    /** The operator's settings for single chats ({@code platforms.matrix.channels}): a channel's require_mention. */
    public void useChannels(dev.herald.core.platform.ChannelOverrides overrides) {
        events.useChannels(overrides);
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
    public void start(InboundSink sink) throws InterruptedException {
        sink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "signing in to " + settings.homeserver());
        MatrixSync s = new MatrixSync(PLATFORM, settings, timing, api, events, state, sink);
        sync = s;
        MatrixSync.First first;
        try {
            first = s.start().get(timing.firstSyncWait().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            first = MatrixSync.First.FAILING;
            log.warn("matrix - not synced after {} ms; still trying in the background", timing.firstSyncWait().toMillis());
        }
        if (first == MatrixSync.First.REJECTED) {
            String why = s.rejection();
            close();
            throw new IllegalStateException(why);
        }
    }

    @Override
    public SendResult send(OutboundMessage m) {
        String room = m.target().chatId();
        if (MatrixIds.room(room) == null) {
            return SendResult.failed("matrix - \"" + room + "\" is not a room id (!abc:example.org)", false);
        }
        if (!api.hasToken()) {
            return SendResult.failed("matrix - not signed in yet", true);
        }
        ObjectNode content;
        if (m.file() != null) {
            SendResult failed = null;
            content = JsonHttp.JSON.createObjectNode();
            try {
                failed = fileContent(m, content);
            } catch (IOException e) {
                return SendResult.failed("matrix - upload failed (" + api.describe(e) + ")", true);
            }
            if (failed != null) {
                return failed;
            }
        } else {
            content = textContent(m.text());
        }
        relate(content, m.target(), m.replyToMessageId());
        try {
            MatrixApi.Answer a = api.send(room, "m.room.message", txnId(m), content);
            if (a.ok() && m.isLastPart()) {
                stopTyping(room);
            }
            return result(a, room);
        } catch (IOException e) {
            return SendResult.failed("matrix - send to " + room + " failed (" + api.describe(e) + ")", true);
        }
    }

    /** The typing notification while a turn runs; best-effort. */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (event instanceof StreamEvent.Typing && api.hasToken() && MatrixIds.room(target.chatId()) != null) {
            try {
                MatrixApi.Answer a = api.typing(target.chatId(), settings.user(), true, TYPING);
                if (!a.ok()) {
                    log.debug("matrix - typing in {} answered {}", target.chatId(), a.problem());
                }
            } catch (IOException e) {
                log.debug("matrix - typing in {} failed ({})", target.chatId(), api.describe(e));
            }
        }
    }

    /** An attachment by its {@code mxc://} URI, from the homeserver's authenticated media download, size-capped. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        String[] mxc = MatrixIds.mxc(ref.ref());
        if (mxc == null) {
            throw new IOException("matrix - the attachment reference is not an mxc:// URI");
        }
        return files.get(api.downloadUrl(mxc[0], mxc[1]), api.auth(), maxBytes, Duration.ofSeconds(30));
    }

    /** Stops syncing; sends need no sync, so replies still go out. */
    @Override
    public void stopReceiving() {
        MatrixSync s = sync;
        sync = null;
        if (s != null) {
            s.stop();
        }
    }

    @Override
    public void close() {
        stopReceiving();
    }

    // ---- sending -----------------------------------------------------------------------------

    static ObjectNode textContent(String markdown) {
        ObjectNode c = JsonHttp.JSON.createObjectNode();
        c.put("msgtype", "m.text");
        c.put("body", markdown);
        String html = MatrixHtml.render(markdown);
        if (!html.isEmpty() && !html.equals(MatrixHtml.escape(markdown))) {
            c.put("format", "org.matrix.custom.html");
            c.put("formatted_body", html);
        }
        c.putObject("m.mentions"); // the model's text mentions nobody
        return c;
    }

    /** Uploads the part's file and fills {@code content} with its event; a result when it cannot be sent. */
    private SendResult fileContent(OutboundMessage m, ObjectNode content) throws IOException {
        OutboundFile f = m.file();
        byte[] bytes;
        try {
            bytes = f.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            return SendResult.failed("matrix - " + e.getMessage(), true); // the next attempt tells the user when it is gone
        }
        MatrixApi.Answer up = api.upload(f.name(), f.mimeType(), bytes);
        if (!up.ok() || !up.body().path("content_uri").asText("").startsWith("mxc://")) {
            if (up.rateLimited()) {
                return SendResult.rateLimited("matrix - upload rate limited (" + up.problem() + ")", up.retryAfter());
            }
            return SendResult.failed("matrix - upload of " + f.name() + " refused (" + up.problem() + ")"
                    + (up.status() == 413 ? "; the homeserver takes smaller files only" : ""), up.retryable());
        }
        String caption = m.text() == null || m.text().isBlank() ? null : m.text();
        content.put("msgtype", f.isImage() ? "m.image" : f.mimeType().startsWith("audio/") ? "m.audio"
                : f.mimeType().startsWith("video/") ? "m.video" : "m.file");
        content.put("body", caption == null ? f.name() : caption);
        content.put("filename", f.name());
        if (caption != null) {
            String html = MatrixHtml.render(caption);
            content.put("format", "org.matrix.custom.html");
            content.put("formatted_body", html);
        }
        content.put("url", up.body().path("content_uri").asText());
        content.putObject("info").put("mimetype", f.mimeType()).put("size", bytes.length);
        content.putObject("m.mentions");
        return null;
    }

    /** In a thread: the thread relation (with a reply fallback for clients without threads); else a reply to the message answered. */
    private static void relate(ObjectNode content, ChatTarget target, String replyTo) {
        String reply = replyTo == null ? null : MatrixIds.event(JsonHttp.JSON.getNodeFactory().textNode(replyTo));
        String thread = target.hasThread() ? MatrixIds.event(JsonHttp.JSON.getNodeFactory().textNode(target.threadId())) : null;
        if (thread != null) {
            ObjectNode rel = content.putObject("m.relates_to");
            rel.put("rel_type", "m.thread");
            rel.put("event_id", thread);
            rel.put("is_falling_back", reply == null);
            rel.putObject("m.in_reply_to").put("event_id", reply == null ? thread : reply);
        } else if (reply != null) {
            content.putObject("m.relates_to").putObject("m.in_reply_to").put("event_id", reply);
        }
    }

    /**
     * The transaction id of {@code m}: from its idempotency key (the same on every attempt) and this store's prefix (so a
     * new database never reuses an old transaction id the homeserver still remembers); random without a key.
     */
    private String txnId(OutboundMessage m) {
        if (m.idempotencyKey() == null) {
            return "herald-" + UUID.randomUUID();
        }
        return "herald-" + prefix() + "-" + digest(m.idempotencyKey());
    }

    private String prefix() {
        String p = txnPrefix;
        if (p == null) {
            synchronized (this) {
                p = state.get(PLATFORM, TXN_PREFIX).orElse(null);
                if (p == null) {
                    p = UUID.randomUUID().toString().substring(0, 8);
                    state.put(PLATFORM, Map.of(TXN_PREFIX, p));
                }
                txnPrefix = p;
            }
        }
        return p;
    }

    private static String digest(String key) {
        if (key.matches("[A-Za-z0-9_.-]{1,64}")) {
            return key;
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private SendResult result(MatrixApi.Answer a, String room) {
        if (a.ok()) {
            return SendResult.sent(a.body().path("event_id").isTextual() ? a.body().path("event_id").asText() : null);
        }
        if (a.rateLimited()) {
            Duration wait = a.retryAfter() == null ? Duration.ofSeconds(1) : a.retryAfter();
            return SendResult.rateLimited("matrix - send to " + room + " rate limited (" + a.problem() + ", retry after " + wait.toMillis()
                    + " ms)", wait);
        }
        if (a.unknownToken()) {
            String key = settings.accessToken().isSet() ? "platforms.matrix.access_token" : "platforms.matrix.password";
            return SendResult.failed("matrix - the access token was rejected (" + a.errcode() + "); check " + key,
                    !settings.accessToken().isSet());
        }
        if (a.status() == 403) {
            return SendResult.failed("matrix - sending to " + room + " is not allowed (" + a.problem() + "); is the bot still in the room?",
                    false);
        }
        return SendResult.failed("matrix - send to " + room + " failed (" + a.problem() + ")", a.retryable());
    }

    private void stopTyping(String room) {
        Thread.ofVirtual().name("matrix-typing").start(() -> {
            try {
                api.typing(room, settings.user(), false, TYPING);
            } catch (IOException e) {
                log.debug("matrix - clearing typing in {} failed ({})", room, api.describe(e));
            }
        });
    }
}
