package dev.herald.platforms.line;

import com.fasterxml.jackson.databind.node.ArrayNode;
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
import dev.herald.core.platform.PlatformState;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LINE through the Messaging API ({@code line}): events arrive on Herald's webhook ({@link LineWebhook}, read by
 * {@link LineEvents}), answers go out through the API ({@link LineApi}). Sessions: one per user in a 1:1 chat, one per
 * group, one per room (the chat id is the user, group or room id, which is also where a push goes).
 *
 * <p>Replies: an event's reply token is kept in the store's platform state (the latest event per chat), and a part
 * answering that event is sent with it ({@code /v2/bot/message/reply}, free of charge) when it is within
 * {@code reply_window_seconds} of the event and was not used yet: the token is marked used before the call, since
 * LINE takes it once. Every other part is a push ({@code /v2/bot/message/push}) with an {@code X-Line-Retry-Key}
 * derived from the outbox's idempotency key, which the outbox stores with the part: a push retried after a crash
 * carries the same key, LINE answers 409 for a key it accepted before, and that counts as sent (exactly once). A
 * reply-token call cut off by a crash is pushed after the restart (the reply API takes no retry key: at least once).
 *
 * <p>Nodes: LINE calls whichever node its load balancer picks, reply tokens live in the store, every node can push:
 * {@link Capabilities.Delivery#ANY_NODE}.
 */
public final class LineAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(LineAdapter.class);

    public static final Platform PLATFORM = Platform.of("line");
    /** The largest file the adapter offers to LINE: an image LINE fetches (anything else becomes a text line). */
    public static final long MAX_FILE_BYTES = LineMessages.MAX_IMAGE_BYTES;
    /** One part is one request: up to 5 text messages of 5,000 characters. */
    static final int MAX_PART = LineMessages.MAX_TEXT * LineMessages.MAX_MESSAGES;
    private static final Capabilities CAPABILITIES = new Capabilities(true, true, false, false, false, true, true, false, MAX_PART,
            new TextFormat("line", text -> LineMessages.render(text).length()), Capabilities.Delivery.ANY_NODE, MAX_FILE_BYTES);
    private static final String REPLY_KEY = "reply.";
    private static final String USED = "used";
    private static final int LOADING_SECONDS = 20;

    private final LineSettings settings;
    private final LineSettings.Timing timing;
    private final Clock clock;
    private final PlatformState state;
    private final LineApi api;
    private final LineWebhook webhook;
    private final byte[] fileKey;
    private final Map<String, Instant> loadingShown = new ConcurrentHashMap<>();
    private volatile InboundSink sink;

    public LineAdapter(LineSettings settings, LineSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.state = Objects.requireNonNull(state, "state");
        this.api = new LineApi(settings, timing);
        this.webhook = new LineWebhook(settings, new LineEvents(PLATFORM, settings.requireMention()), clock, this::receive);
        this.fileKey = LineWebhook.hmac(settings.channelSecretValue().getBytes(StandardCharsets.UTF_8),
                "herald line file links".getBytes(StandardCharsets.UTF_8));
    }

    /** Serves LINE's webhook and, with a public URL, the files LINE fetches for image messages (before Herald listens). */
    void serveOn(InboundHttp http) {
        webhook.serveOn(http);
        if (!settings.publicUrl().isEmpty()) {
            http.route("GET", "files", this::file);
        }
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
     * Checks the channel access token ({@code GET /v2/bot/info}): a rejected token stops the start naming the key; an
     * unreachable API is logged and the webhook is served anyway.
     */
    @Override
    public void start(InboundSink inboundSink) {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "checking the channel access token");
        try {
            LineApi.Answer a = api.botInfo();
            if (a.status() == 401) {
                inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "channel access token rejected");
                throw new IllegalStateException("line - the channel access token was rejected (" + a.describe()
                        + "); check platforms.line.channel_access_token");
            }
            if (!a.ok()) {
                log.warn("line - the Messaging API answered {} to the bot info request (serving the webhook anyway)", a.describe());
            } else {
                log.info("line - sending as {} ({}), bot user id {}", a.body().path("displayName").asText("?"), a.body().path("basicId").asText("?"),
                        a.body().path("userId").asText("?"));
            }
        } catch (IOException e) {
            log.warn("line - the Messaging API is not reachable now ({}); serving the webhook, sends are retried", api.describe(e));
        }
        sink = inboundSink;
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "webhook at " + InboundHttp.pathOf(PLATFORM, "webhook"));
    }

    /** Sends one part: with the reply token of the event it answers while that is fresh and unused, else as a push; see the class comment. */
    @Override
    public SendResult send(OutboundMessage m) {
        ArrayNode messages = m.file() != null ? LineMessages.file(m, fileUrl(m.file())) : LineMessages.text(m);
        String what = m.file() != null ? "sending the file " + m.file().name() : "sending a message";
        String token = takeReplyToken(m);
        if (token != null) {
            try {
                LineApi.Answer a = api.reply(token, messages);
                if (a.ok()) {
                    return SendResult.sent(sentId(a));
                }
                boolean tokenRefused = a.status() == 400 && a.message() != null && a.message().toLowerCase(java.util.Locale.ROOT).contains("reply token");
                if (!tokenRefused) {
                    log.warn("line - {} with the reply token: {}", what, a.describe());
                    return api.failure(what + " with the reply token", a); // the token is spent: a retry pushes
                }
                log.info("line - the reply token for {} was refused ({}); pushing instead", m.target().chatId(), a.describe());
            } catch (IOException e) {
                return SendResult.failed("line - " + what + " with the reply token: " + api.describe(e) + " (a retry pushes)", true);
            }
        }
        String retryKey = retryKey(m);
        try {
            LineApi.Answer a = api.push(m.target().chatId(), messages, retryKey);
            if (a.ok()) {
                return SendResult.sent(sentId(a));
            }
            if (a.status() == 409) {
                log.info("line - push to {} with retry key {} was accepted by LINE before ({}); not sent again", m.target().chatId(), retryKey,
                        a.message());
                return SendResult.sent(sentId(a)); // LINE names the messages of the accepted request
            }
            if (a.status() == 400) {
                log.warn("line - LINE refused {} to {}: {}", what, m.target().chatId(), a.describe());
            }
            return api.failure(what, a);
        } catch (IOException e) {
            return SendResult.failed("line - " + what + ": " + api.describe(e), true);
        }
    }

    private static String sentId(LineApi.Answer a) {
        String id = a.body().path("sentMessages").path(0).path("id").asText("");
        return id.isEmpty() ? null : id;
    }

    /**
     * The push's retry key: a UUID named by the outbox's idempotency key of the part (the same for every attempt, after a
     * crash too, since the outbox stores it with the part); a random one for a message that is not recorded.
     */
    static String retryKey(OutboundMessage m) {
        return m.idempotencyKey() == null ? UUID.randomUUID().toString()
                : UUID.nameUUIDFromBytes(("herald line push " + m.idempotencyKey()).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /**
     * The reply token of the event {@code m} answers, when it is the chat's latest, within the window and unused; it is
     * marked used in the store before it is returned (LINE takes a token once). Null otherwise, or when the store cannot
     * say (then the part is pushed).
     */
    private String takeReplyToken(OutboundMessage m) {
        if (settings.replyWindowSeconds() == 0 || m.replyToMessageId() == null) {
            return null;
        }
        String key = REPLY_KEY + m.target().chatId();
        try {
            String[] v = state.get(PLATFORM, key).orElse("").split(" ");
            if (v.length != 3 || !v[0].equals(m.replyToMessageId()) || v[1].equals(USED) || !v[2].matches("[0-9]{1,15}")) {
                return null;
            }
            Instant at = Instant.ofEpochMilli(Long.parseLong(v[2]));
            if (!clock.instant().isBefore(at.plusSeconds(settings.replyWindowSeconds()))) {
                log.debug("line - the reply token of {} is older than {} s; pushing", v[0], settings.replyWindowSeconds());
                return null;
            }
            state.put(PLATFORM, Map.of(key, v[0] + " " + USED + " " + v[2]));
            return v[1];
        } catch (RuntimeException e) {
            log.debug("line - the reply token for {} could not be read from the store ({}); pushing", m.target().chatId(), e.toString());
            return null;
        }
    }

    /** Starts the loading animation in a 1:1 chat while a turn runs, at most every {@code typingInterval} per chat (LINE has none for groups). */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (!(event instanceof StreamEvent.Typing) || !target.chatId().startsWith("U")) {
            return;
        }
        Instant now = clock.instant();
        Instant last = loadingShown.get(target.chatId());
        if (last != null && last.plus(timing.typingInterval()).isAfter(now)) {
            return;
        }
        loadingShown.put(target.chatId(), now);
        if (loadingShown.size() > 4096) {
            loadingShown.clear();
        }
        try {
            LineApi.Answer a = api.loading(target.chatId(), LOADING_SECONDS);
            if (!a.ok()) {
                log.debug("line - loading animation for {} not shown: {}", target.chatId(), a.describe());
            }
        } catch (IOException e) {
            log.debug("line - loading animation for {} not shown: {}", target.chatId(), api.describe(e));
        }
    }

    /** The bytes of an image, video, audio or file message: its content from the data API's host, and only from there. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        return api.content(ref.ref(), maxBytes);
    }

    /** Keeps the event's reply token (before the gateway may answer it inline), then hands the message to the gateway. */
    private Admission receive(LineEvents.Incoming in) {
        InboundSink s = sink;
        if (s == null) {
            return Admission.REJECTED_STOPPING;
        }
        if (in.replyToken() != null && settings.replyWindowSeconds() > 0
                && clock.instant().isBefore(in.at().plusSeconds(settings.replyWindowSeconds()))) {
            try {
                String key = REPLY_KEY + in.event().source().chatId();
                String[] known = state.get(PLATFORM, key).orElse("").split(" ");
                boolean newer = known.length != 3 || !known[2].matches("[0-9]{1,15}") || Long.parseLong(known[2]) < in.at().toEpochMilli();
                if (newer && !known[0].equals(in.event().messageId())) { // a redelivery neither revives a used token nor displaces a later one
                    state.put(PLATFORM, Map.of(key, in.event().messageId() + " " + in.replyToken() + " " + in.at().toEpochMilli()));
                }
            } catch (RuntimeException e) {
                log.debug("line - could not keep the reply token of {} ({}); its answer is pushed", in.event().messageId(), e.toString());
            }
        }
        try {
            return s.accept(in.event());
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("line - the gateway failed to take event {}; answered 503 so that LINE delivers it again", in.event().messageId(), e);
            }
            return Admission.REJECTED_UNAVAILABLE;
        }
    }

    // ---- files LINE fetches for image messages ----------------------------------------------------

    /** The public URL of a file part ({@code public_url} + this route, with the file's reply reference and its signature), or null. */
    String fileUrl(OutboundFile f) {
        if (settings.publicUrl().isEmpty() || f.ref() == null || OutboundFile.parseReplyRef(f.ref()).isEmpty()) {
            return null;
        }
        return settings.publicUrl() + InboundHttp.pathOf(PLATFORM, "files") + "?ref=" + URLEncoder.encode(f.ref(), StandardCharsets.UTF_8)
                + "&sig=" + signature(f.ref());
    }

    private String signature(String ref) {
        return HexFormat.of().formatHex(LineWebhook.hmac(fileKey, ref.getBytes(StandardCharsets.UTF_8))).substring(0, 32);
    }

    /** {@code GET files?ref=&sig=}: a file of an answer, to LINE's image fetcher, when the signature is Herald's own; else 404. */
    InboundHttp.Response file(InboundHttp.Request r) {
        String ref = r.query().getOrDefault("ref", "");
        String sig = r.query().getOrDefault("sig", "");
        Optional<long[]> parsed = OutboundFile.parseReplyRef(ref);
        InboundSink s = sink;
        if (parsed.isEmpty() || s == null
                || !MessageDigest.isEqual(signature(ref).getBytes(StandardCharsets.US_ASCII), sig.getBytes(StandardCharsets.US_ASCII))) {
            log.info("line - file request from {} without a valid link; 404", r.remoteAddress());
            return InboundHttp.Response.text(404, "no such file");
        }
        Optional<OutboundFile> f = s.sentFile(PLATFORM, parsed.get()[0], (int) parsed.get()[1]);
        if (f.isEmpty()) {
            return InboundHttp.Response.text(404, "no such file");
        }
        try {
            return new InboundHttp.Response(200, f.get().mimeType(), f.get().read(MAX_FILE_BYTES));
        } catch (IOException e) {
            log.warn("line - file {} for LINE's image fetcher cannot be read: {}", ref, e.getMessage());
            return InboundHttp.Response.text(404, "no such file");
        }
    }

    @Override
    public void close() {
        sink = null;
    }
}
