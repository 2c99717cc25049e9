package dev.herald.platforms.mattermost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.retry.Backoff;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.FirstAttempt;
import dev.herald.platforms.common.PlatformIds;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mattermost as a Herald platform ({@code mattermost}): the WebSocket API for new posts ({@link MattermostSocket}), REST
 * v4 for replies, files and catch-up ({@link MattermostApi}), normalisation at the edge ({@link MattermostPosts}).
 *
 * <p>Inbound order and delivery: the socket hands every post, and every catch-up, to one inbound worker (a single
 * virtual thread) that calls {@link InboundSink#accept} one post at a time, in order. Mattermost has no acknowledgement
 * and no redelivery; what it has is {@code GET /channels/{id}/posts?since=}. So Herald keeps, per channel, the
 * {@code create_at} of the last post it is done with ({@link PostCursor}, in the store), moved only after the gateway
 * accepted the post; on every (re)connection, and when {@code seq} shows lost events, it reads each channel's posts
 * since its cursor and hands them over. A post read twice (by the socket and by catch-up) has the same post id, which
 * the gateway's durable dedupe drops: a post is answered once. While the store cannot write, the worker holds the post
 * and hands it over again with a growing pause (the posts after it wait behind it); a post turned away because Herald is
 * stopping leaves the cursor where it was, so the next process reads it again.
 *
 * <p>Replies: {@code POST /posts} into the channel, with {@code root_id} when the conversation is a thread. The model's
 * Markdown is sent as it is (Mattermost renders Markdown), split below the server's 16,383 characters by the gateway.
 * Each reply part carries a {@code pending_post_id} derived from its idempotency key: the server answers a repeated
 * create with the post it made for that id for 30 seconds, so a resend soon after a crash is one post.
 */
public final class MattermostAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(MattermostAdapter.class);

    public static final Platform PLATFORM = Platform.of("mattermost");
    /** A Mattermost server's default maximum post size, in characters (Unicode code points). */
    public static final int MAX_TEXT = 16_383;
    /** A Mattermost server's default maximum file size (System Console > Files > Maximum File Size): 100 MiB. */
    public static final long MAX_FILE_BYTES = 100L * 1024 * 1024;
    private static final Capabilities CAPABILITIES = new Capabilities(true, true, false, true, false, MAX_TEXT)
            .with(new TextFormat("markdown", text -> text.codePointCount(0, text.length())))
            .with(Capabilities.Delivery.SINGLE_CONNECTION).withFiles(MAX_FILE_BYTES, false);
    private static final int CATCH_UP_ATTEMPTS = 5;

    private final MattermostSettings settings;
    private final MattermostSettings.Timing timing;
    private final Clock clock;
    private final HttpClient http;
    private final MattermostApi api;
    private final MattermostPosts posts;
    private final PostCursor cursor;
    private final FileDownload files;
    private final MattermostSocket socket;
    private final ExecutorService inbound = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("mattermost-inbound").factory());
    private final FirstAttempt firstAttempt = new FirstAttempt();
    private volatile InboundSink sink;
    private volatile MattermostApi.Identity identity;
    private volatile String teamId;
    private final java.util.concurrent.atomic.AtomicBoolean gapCatchUpQueued = new java.util.concurrent.atomic.AtomicBoolean();

    /** An adapter for enabled, validated {@code settings}, paced by {@code timing}, keeping its cursors in {@code state}. */
    public MattermostAdapter(MattermostSettings settings, MattermostSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.clock = Objects.requireNonNull(clock, "clock");
        ObjectMapper json = new ObjectMapper();
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timing.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        this.api = new MattermostApi(settings, timing, http, json);
        this.posts = new MattermostPosts(settings, clock);
        this.cursor = new PostCursor(state);
        this.files = new FileDownload("mattermost", Set.copyOf(FileDownload.hostsOf(settings.serverUri())), timing.connectTimeout());
        this.socket = new MattermostSocket(settings, timing, http, json, new Events());
    }

    /** The operator's settings for single chats ({@code platforms.mattermost.channels}): a channel's require_mention. */
    public void useChannels(dev.herald.core.platform.ChannelOverrides overrides) {
        posts.useChannels(overrides);
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
    public void start(InboundSink inboundSink) throws Exception {
        this.sink = Objects.requireNonNull(inboundSink, "sink");
        log.info("mattermost - connecting ({})", settings);
        socket.start();
        if (!firstAttempt.await(timing.connectTimeout().multipliedBy(3), this::close)) {
            log.warn("mattermost - not connected yet; still connecting in the background");
        }
    }

    @Override
    public SendResult send(OutboundMessage message) {
        ChatTarget t = message.target();
        String pending = pendingPostId(t.chatId(), message.idempotencyKey());
        OutboundFile f = message.file();
        if (f == null) {
            return api.createPost(t.chatId(), message.text(), t.threadId(), List.of(), pending);
        }
        byte[] bytes;
        try {
            bytes = f.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            return SendResult.failed("mattermost - " + e.getMessage(), true); // the next attempt tells the user when it is gone
        }
        String fileId;
        try {
            fileId = api.uploadFile(t.chatId(), f.name(), f.mimeType(), bytes);
        } catch (MattermostApi.CallFailed e) {
            return MattermostApi.failed("uploading file " + f.name() + " to channel " + t.chatId(), e.failure);
        }
        return api.createPost(t.chatId(), message.text(), t.threadId(), List.of(fileId), pending);
    }

    /** "Herald is typing..." while a turn runs: the one progress Mattermost shows. */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        MattermostApi.Identity me = identity;
        if (event instanceof StreamEvent.Typing && me != null && !api.typing(me.id(), target.chatId(), target.threadId())) {
            log.debug("mattermost - typing in channel {} was not shown", target.chatId());
        }
    }

    /** A post's file by its id ({@code GET /files/{id}}): the server serves it to the bot's token, on the configured host only. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        String id = PlatformIds.clean(ref.ref());
        if (id == null) {
            throw new IOException("mattermost - the attachment reference is not a Mattermost file id");
        }
        return files.get(api.fileUrl(id), Map.of("Authorization", "Bearer " + settings.tokenValue()), maxBytes, Duration.ofSeconds(30));
    }

    /** Closes the websocket; replies go over REST, which needs none. */
    @Override
    public void stopReceiving() {
        socket.close();
    }

    @Override
    public void close() {
        socket.close();
        inbound.shutdownNow();
        try {
            inbound.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        http.close();
    }

    /**
     * The {@code pending_post_id} of a reply part: the same for every attempt to send that part (its idempotency key, with
     * the channel, hashed to a fixed length), none for messages that are not recorded (notices).
     */
    static String pendingPostId(String channelId, String idempotencyKey) {
        if (idempotencyKey == null || idempotencyKey.isBlank()) {
            return null;
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest((channelId + "\n" + idempotencyKey).getBytes(StandardCharsets.UTF_8));
            return "herald:" + HexFormat.of().formatHex(d, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    // ---- the inbound worker -----------------------------------------------------------------------------------------

    private void submit(Runnable task) {
        try {
            inbound.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("mattermost - event after close ignored");
        }
    }

    /** One post: normalised, handed to the gateway, and the cursor moved once the gateway is done with it. */
    private void handle(JsonNode post, String channelType, String channelName, String channelDisplayName, String senderName) {
        String channel = PlatformIds.of(post.path("channel_id"));
        long createAt = post.path("create_at").asLong(0);
        Optional<MessageEvent> event;
        try {
            event = posts.normalise(post, channelType, channelName, channelDisplayName, senderName);
        } catch (RuntimeException e) {
            log.warn("mattermost - skipped a post Herald cannot read ({})", e.toString());
            event = Optional.empty();
        }
        if (event.isEmpty()) {
            if (channel != null) {
                cursor.done(channel, createAt);
            }
            return;
        }
        MessageEvent e = event.get();
        Admission a;
        try {
            a = acceptHolding(e);
        } catch (RuntimeException ex) {
            log.warn("mattermost - the gateway failed to accept post {} in channel {}; catch-up reads it again", e.messageId(), channel, ex);
            return;
        }
        if (a == null) {
            return;
        }
        if (a == Admission.REJECTED_STOPPING) {
            log.info("mattermost - post {} in channel {} arrived while Herald is stopping; the next start reads it again", e.messageId(),
                    channel);
            return;
        }
        log.debug("mattermost - post {} in channel {}: {}", e.messageId(), channel, a);
        cursor.done(channel, createAt);
    }

    /** Hands {@code e} to the gateway, again and again while its store cannot write; null when the adapter closed meanwhile. */
    private Admission acceptHolding(MessageEvent e) {
        Backoff wait = null;
        while (true) {
            Admission a;
            try {
                a = sink.accept(e);
            } catch (RuntimeException ex) {
                if (!StoreException.isOutage(ex)) {
                    throw ex;
                }
                a = Admission.REJECTED_UNAVAILABLE;
            }
            if (a != Admission.REJECTED_UNAVAILABLE) {
                if (wait != null) {
                    log.info("mattermost - post {} held while the store could not write is stored now ({} tries)", e.messageId(),
                            wait.attempts() + 1);
                }
                return a;
            }
            if (wait == null) {
                wait = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(5));
                log.info("mattermost - post {} held: the store cannot write now; it is handed over again until it can", e.messageId());
            }
            try {
                Thread.sleep(wait.next());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                log.info("mattermost - post {} was not stored before the adapter closed; the next start reads it again", e.messageId());
                return null;
            }
        }
    }

    /**
     * Reads the posts of every channel the bot answers in since its cursor and hands them over, oldest first. The first
     * start ever reads nothing: it marks "now" as where the next catch-up begins, so history is not answered.
     */
    private void catchUp(String why) {
        if (!cursor.load()) {
            return;
        }
        if (!cursor.started()) {
            cursor.begin(clock.millis());
            log.info("mattermost - first connection: posts from now on are answered, earlier ones are not");
            return;
        }
        Backoff retry = timing.backoff();
        for (int attempt = 1; ; attempt++) {
            try {
                int handed = catchUpOnce();
                if (handed > 0) {
                    log.info("mattermost - caught up after {}: {} post(s) since the last one Herald read", why, handed);
                }
                return;
            } catch (MattermostApi.CallFailed e) {
                if (attempt >= CATCH_UP_ATTEMPTS || e.failure.status() == 401) {
                    log.warn("{}; catch-up after {} gave up after {} attempt(s), the next connection tries again", e.getMessage(), why,
                            attempt);
                    return;
                }
                try {
                    Thread.sleep(retry.next(e.failure.retryAfter()));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private int catchUpOnce() throws MattermostApi.CallFailed {
        Map<String, MattermostApi.Channel> channels = new LinkedHashMap<>();
        for (String team : teams()) {
            for (MattermostApi.Channel c : api.myChannels(team)) {
                if (posts.answersIn(c.id(), c.type(), c.name())) {
                    channels.putIfAbsent(c.id(), c);
                }
            }
        }
        int handed = 0;
        for (MattermostApi.Channel c : channels.values()) {
            OptionalLong since = cursor.since(c.id());
            if (since.isEmpty()) {
                continue;
            }
            for (JsonNode post : api.postsSince(c.id(), since.getAsLong())) {
                handle(post, c.type(), c.name(), c.displayName(), null);
                handed++;
            }
        }
        return handed;
    }

    private List<String> teams() throws MattermostApi.CallFailed {
        if (settings.team().isEmpty()) {
            return api.myTeams();
        }
        String id = teamId;
        if (id == null) {
            id = api.teamId(settings.team()).orElse(null);
            if (id == null) {
                log.warn("mattermost - no team named \"{}\" that the bot can see (platforms.mattermost.team); only direct messages are "
                        + "caught up", settings.team());
                return api.myTeams().stream().limit(1).toList(); // direct messages are listed with any team
            }
            teamId = id;
        }
        return List.of(id);
    }

    /** The socket's reports: posts and catch-ups go to the inbound worker in order; nothing here blocks the socket. */
    private final class Events implements MattermostSocket.Handler {
        @Override
        public void beforeConnect() throws MattermostApi.CallFailed {
            if (identity == null) {
                MattermostApi.Identity me = api.me();
                identity = me;
                posts.self(me.id(), me.username());
                log.info("mattermost - bot user @{} ({})", me.username(), me.id());
            }
        }

        @Override
        public void connected(String connectionId) {
            submit(() -> catchUp("connecting"));
        }

        @Override
        public void posted(MattermostFrames.Posted p) {
            submit(() -> handle(p.post(), p.channelType(), p.channelName(), p.channelDisplayName(), p.senderName()));
        }

        /** At most one catch-up for lost events waits at a time: a burst of gaps is one catch-up. */
        @Override
        public void gap(long expected, long got) {
            if (gapCatchUpQueued.compareAndSet(false, true)) {
                submit(() -> {
                    gapCatchUpQueued.set(false);
                    catchUp("lost websocket events");
                });
            }
        }

        @Override
        public void connection(ConnectionState state, String detail) {
            submit(() -> sink.connectionChanged(PLATFORM, state, detail));
            firstAttempt.reported(state);
        }

        @Override
        public void failed(String message) {
            submit(() -> sink.connectionChanged(PLATFORM, ConnectionState.STOPPED, message));
            firstAttempt.gaveUp(message);
        }
    }
}
