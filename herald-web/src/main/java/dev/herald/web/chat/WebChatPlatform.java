package dev.herald.web.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.web.MediaStore;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.agent.ToolState;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.TranscriptSession;
import dev.herald.core.turn.TurnState;
import dev.herald.web.Routes;
import dev.herald.web.TranscriptView;
import dev.herald.web.WebJson;
import dev.herald.web.WebJson.BadRequest;
import dev.herald.web.WebServer;
import dev.herald.web.access.WebGuard;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web chat as a Herald platform ({@code webchat}): interactive, streaming, no typing indicator. Each
 * browser conversation (an id the page makes) is one chat, so one session lane.
 *
 * <p>Wire (all JSON, on the API server's port, guarded by {@link WebGuard}):
 * <ul>
 *   <li>{@code POST /chat/api/send} {@code {conversation, clientId, text, title}}: one message. The page's
 *       {@code clientId} becomes the event's platform message id, so the gateway's durable dedupe drops a
 *       repeat (a message retried after a reconnect is delivered once).</li>
 *   <li>{@code GET /chat/api/stream?c=ID}: a server-sent event stream of {@code hello}, {@code delta},
 *       {@code tool}, {@code reply}, {@code error}, {@code command}, {@code notice} and {@code prompt}
 *       frames for one conversation, with a comment line every {@value #HEARTBEAT_MS} ms.</li>
 *   <li>{@code GET /chat/api/transcript?c=ID&after=SEQ}: the stored rows after {@code SEQ} of the
 *       conversation's current session, its session id, and the session it continues after a compression
 *       ({@code continues}, whose copied rows are marked {@code carried}).</li>
 *   <li>{@code GET /chat/api/conversations}: the web chat conversations the store knows, with their
 *       title and whether their user deleted them ({@code hidden}).</li>
 *   <li>{@code POST /chat/api/rename} {@code {conversation, title}} and {@code POST /chat/api/delete}
 *       {@code {conversation}}: the user's title, and deleting a conversation from the list (the store hides
 *       it; its transcript is kept for the admin). A conversation not stored yet answers {@code local}: the
 *       page keeps its title and sends it with the first message.</li>
 * </ul>
 *
 * <p>Delivery. The transcript is the source of truth: a final reply is stored before it is sent, so
 * {@link #send} only tells open streams that one arrived, and a page that was not connected (the gateway
 * restarted, the laptop slept) fetches the rows it lacks when it reconnects, by sequence number, so
 * nothing is lost or shown twice. What the transcript does not hold is kept by {@link ChatStreams}. A turn
 * of the conversation that ran on another node (several nodes, or the old process of a handover) is announced
 * to this node's streams by {@link OtherNodeReplies}, which looks at the store once a second while a stream is
 * open and another node runs.
 *
 * <p>Lifecycle: NEW (streams and reads work; sends answer 503 "starting") → RUNNING (after the gateway
 * calls {@link #start}) → CLOSED (every stream ends; sends answer 503 "stopping").
 */
public final class WebChatPlatform implements PlatformAdapter, dev.herald.core.platform.MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(WebChatPlatform.class);

    /** The platform id, {@code webchat}. */
    public static final Platform PLATFORM = Platform.of("webchat");
    /** The user id of the web chat's messages before accounts: whoever passes the page's access rule ({@link dev.herald.web.access.WebUser#SINGLE_USER}). */
    public static final String USER_ID = "web";
    static final long HEARTBEAT_MS = 15_000;
    /** Replies go back over the request (or event stream) this node holds: its turns run here. */
    private static final Capabilities CAPABILITIES = new Capabilities(true, false, false, false, true, 100_000)
            .with(Capabilities.Delivery.WHERE_RECEIVED).withFiles(WebChatPlatform.MAX_FILE_BYTES, false);
    /** The largest file an answer sends to the page (a link to it under {@link TranscriptView#FILES_PATH}). */
    public static final long MAX_FILE_BYTES = 2L * 1024 * 1024 * 1024; // streamed from the workspace: no memory bound
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{6,64}");
    private static final int MAX_TEXT = 32_000;
    private static final int MAX_ATTACHMENTS = 4;
    private volatile MediaStore media = MediaStore.inMemory();
    private volatile long maxImageBytes = dev.herald.core.agent.ImagePart.DEFAULT_MAX_BYTES;
    private static final int MAX_ROWS = 500;
    private static final int MAX_TOOL_TEXT = 400;
    private static final int MAX_TITLE = 200;

    private enum State { NEW, RUNNING, CLOSED }

    private final Storage storage;
    private final SessionKey.KeyPolicy keyPolicy;
    private final Clock clock;
    private final WebGuard guard;
    private final ChatStreams streams = new ChatStreams();
    private final OtherNodeReplies otherNodes;
    private final ConversationOwners owners;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final AtomicLong sent = new AtomicLong();
    private volatile InboundSink sink;

    /** Creates the adapter and adds its routes to {@code server} (which must not have started). */
    public WebChatPlatform(Storage storage, SessionKey.KeyPolicy keyPolicy, WebGuard guard, WebServer server, Clock clock) {
        this.storage = Objects.requireNonNull(storage, "storage");
        this.keyPolicy = Objects.requireNonNull(keyPolicy, "keyPolicy");
        this.guard = Objects.requireNonNull(guard, "guard");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.otherNodes = new OtherNodeReplies(storage, streams, this::keyOf);
        this.owners = new ConversationOwners(storage, this::keyOf);
        server.add(Routes.of(PLATFORM.id(), this::register));
    }

    /** What voice notes were heard as, by the conversation's key and the note; none until {@link #showHeard} is called. */
    private volatile java.util.function.BiFunction<String, MessageEvent.MediaRef, Optional<String>> heard = (k, r) -> Optional.empty();

    /**
     * Shows under each voice note what it was heard as ({@code voice.transcription}), looked up by the conversation's key
     * and the note (the agent keeps each transcript in the conversation's workspace).
     */
    public void showHeard(java.util.function.BiFunction<String, MessageEvent.MediaRef, Optional<String>> lookup) {
        this.heard = Objects.requireNonNull(lookup, "lookup");
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
    public void start(InboundSink inbound) {
        Objects.requireNonNull(inbound, "sink");
        this.sink = inbound;
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("webchat - start() called while " + state.get().name().toLowerCase());
        }
        otherNodes.start();
        inbound.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "serving the web chat at /");
    }

    @Override
    public SendResult send(OutboundMessage message) {
        String conversation = message.target().chatId();
        ObjectNode frame = WebJson.MAPPER.createObjectNode().put("text", message.text()).put("part", message.part())
                .put("parts", message.parts());
        if (message.correlationId() != null) {
            frame.put("turn", message.correlationId());
            if (message.kind().isAnswer() && message.isLastPart()) {
                otherNodes.sentHere(message.correlationId());
            }
        }
        switch (message.kind()) {
            case REPLY, CUT_OFF_REPLY -> { // the page shows the reply from the transcript, which holds a cut-off reply's notice
                streams.prompt(conversation, null);
                streams.publish(conversation, encode(frame.put("type", "reply")));
            }
            case PROMPT -> {
                byte[] prompt = encode(frame.put("type", "prompt"));
                streams.prompt(conversation, prompt);
                streams.publishOrKeep(conversation, prompt);
            }
            case ERROR, COMMAND_RESPONSE, NOTICE -> {
                if (message.kind() != MessageKind.NOTICE) {
                    streams.prompt(conversation, null);
                }
                streams.publishOrKeep(conversation, encode(frame.put("type", typeOf(message))));
            }
        }
        return SendResult.sent("webchat-" + sent.incrementAndGet());
    }

    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (event instanceof StreamEvent.Usage || event instanceof StreamEvent.Typing) {
            return; // the page shows neither token counts nor a typing indicator (it has none: capabilities)
        }
        ObjectNode frame = WebJson.MAPPER.createObjectNode();
        if (correlationId != null) {
            frame.put("turn", correlationId);
        }
        switch (event) {
            case StreamEvent.TextDelta d -> frame.put("type", "delta").put("text", d.text());
            case StreamEvent.ToolStarted t -> frame.put("type", "tool").put("phase", "started").put("call", t.callId())
                    .put("name", t.toolName()).put("summary", t.summary()).put("state", "running");
            case StreamEvent.ToolFinished t -> frame.put("type", "tool").put("phase", "finished").put("call", t.callId())
                    .put("name", t.toolName()).put("state", t.state().wire()).put("ok", t.state() == ToolState.OK);
            case StreamEvent.Usage u -> {
                return;
            }
            case StreamEvent.Typing t -> {
                return;
            }
        }
        streams.publish(target.chatId(), encode(frame));
    }

    @Override
    public void close() {
        State was = state.getAndSet(State.CLOSED);
        if (was == State.CLOSED) {
            return;
        }
        otherNodes.stop();
        int open = streams.openStreams();
        streams.closeAll();
        log.info("webchat - stopped ({} open stream(s) ended; pages reconnect by themselves)", open);
        InboundSink s = sink;
        if (s != null) {
            s.connectionChanged(PLATFORM, ConnectionState.STOPPED, "closed");
        }
    }

    private static String typeOf(OutboundMessage m) {
        return switch (m.kind()) {
            case ERROR -> "error";
            case COMMAND_RESPONSE -> "command";
            default -> "notice";
        };
    }

    // ---- routes ---------------------------------------------------------------------------------

    private void register(RoutesConfig routes) {
        routes.get("/chat/api/conversations", guard.read(this::conversations));
        routes.get("/chat/api/transcript", guard.read(this::transcript));
        routes.get("/chat/api/stream", guard.read(this::stream));
        routes.post("/chat/api/send", guard.write(this::sendFromPage));
        routes.post("/chat/api/rename", guard.write(this::rename));
        routes.post("/chat/api/delete", guard.write(this::delete));
        routes.post("/chat/api/upload", guard.write(this::upload));
        routes.get(TranscriptView.FILES_PATH + "{turn}/{index}", guard.read(this::file));
    }

    /**
     * {@code GET /chat/api/files/<turn>/<index>}: a file an answer sent ({@code send_file}), the link the transcript's row
     * lists; only files of web chat turns (see {@link dev.herald.web.ReplyFileDownload}).
     */
    private void file(Context ctx) throws java.io.IOException {
        Optional<long[]> at = dev.herald.web.ReplyFileDownload.parse(ctx.pathParam("turn"), ctx.pathParam("index"));
        if (at.isEmpty()) {
            throw new BadRequest(404, "no such file: the link names no file this conversation was sent");
        }
        owners.requireTurn(WebGuard.user(ctx), at.get()[0]);
        switch (dev.herald.web.ReplyFileDownload.find(storage.turns(), PLATFORM, at.get()[0], (int) at.get()[1])) {
            case dev.herald.web.ReplyFileDownload.Found.File f -> dev.herald.web.ReplyFileDownload.write(ctx, f.file());
            case dev.herald.web.ReplyFileDownload.Found.Missing m -> WebJson.error(ctx, m.status(), m.message());
        }
    }

    /**
     * {@code POST /chat/api/upload}, the file itself as the body: kept in the media store, answered with its reference
     * for the next {@code send}'s {@code attachments}. PNG, JPEG, GIF and WebP images (at most {@link #maxImageBytes}
     * bytes) and voice recordings (OGG, WebM, WAV, MP3, MP4; at most {@value #MAX_AUDIO_BYTES} bytes), checked on the bytes.
     */
    private void upload(Context ctx) throws java.io.IOException {
        byte[] bytes;
        try (java.io.InputStream in = ctx.req().getInputStream()) {
            bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, Math.max(maxImageBytes, MAX_AUDIO_BYTES) + 1));
        }
        Optional<String> image = dev.herald.core.agent.ImagePart.sniff(bytes);
        Optional<String> audio = image.isPresent() ? Optional.empty() : dev.herald.core.platform.AudioTypes.sniff(bytes);
        if (image.isEmpty() && audio.isEmpty() && bytes.length > maxImageBytes) {
            throw new BadRequest(413, "the upload is over the " + maxImageBytes + "-byte limit for images (model.max_image_bytes); send a smaller one");
        }
        if (image.isEmpty() && audio.isEmpty()) {
            throw new BadRequest(415, "only PNG, JPEG, GIF and WebP images, and voice recordings (OGG, WebM, WAV, MP3, MP4) can be sent");
        }
        if (image.isPresent() && bytes.length > maxImageBytes) {
            throw new BadRequest(413, "the image is over the " + maxImageBytes + "-byte limit (model.max_image_bytes); send a smaller one");
        }
        if (audio.isPresent() && bytes.length > MAX_AUDIO_BYTES) {
            throw new BadRequest(413, "the recording is over the " + MAX_AUDIO_BYTES + "-byte limit; send a shorter one");
        }
        String ref = media.put(bytes, WebGuard.user(ctx).owner());
        WebJson.write(ctx, 200, Map.of("ref", ref, "type", image.orElseGet(audio::get), "kind", image.isPresent() ? "image" : "voice",
                "bytes", bytes.length));
    }

    /** The largest voice recording the page uploads (about 25 minutes of Opus at 128 kbit/s; OpenAI's transcription limit). */
    static final long MAX_AUDIO_BYTES = 25L * 1024 * 1024;

    /** The images and voice recordings a {@code send} names ({@code attachments: [{ref}]}), each one this store keeps. */
    private List<MessageEvent.MediaRef> attachments(JsonNode list, dev.herald.web.access.WebUser viewer) {
        if (list == null || list.isNull() || list.isMissingNode()) {
            return List.of();
        }
        if (!list.isArray() || list.size() > MAX_ATTACHMENTS) {
            throw new BadRequest(400, "attachments must be a list of at most " + MAX_ATTACHMENTS + " uploaded images or recordings");
        }
        List<MessageEvent.MediaRef> refs = new java.util.ArrayList<>();
        for (JsonNode a : list) {
            String ref = a.path("ref").asText("");
            Optional<byte[]> kept;
            Optional<String> uploader;
            try {
                kept = media.get(ref);
                uploader = kept.isPresent() ? media.owner(ref) : Optional.empty();
            } catch (java.io.IOException e) {
                throw new BadRequest(500, "the upload could not be read (" + e.getClass().getSimpleName() + ")");
            }
            if (kept.isEmpty() || !ConversationOwners.mayAttach(viewer, uploader)) { // another's reads as one never uploaded
                throw new BadRequest(400, "attachment " + shortTitle(ref) + " was not uploaded here; upload it again");
            }
            byte[] bytes = kept.get();
            Optional<String> image = dev.herald.core.agent.ImagePart.sniff(bytes);
            if (image.isPresent()) {
                refs.add(new MessageEvent.MediaRef("image", ref, image.get()));
            } else {
                String type = dev.herald.core.platform.AudioTypes.sniff(bytes).orElse("application/octet-stream");
                refs.add(new MessageEvent.MediaRef("voice", ref, type, null, bytes.length));
            }
        }
        return refs;
    }

    /** Keeps uploaded images in {@code store} (the app passes one under Herald's home), up to {@code limit} bytes each. */
    public void useMediaStore(MediaStore store, long limit) {
        this.media = java.util.Objects.requireNonNull(store, "store");
        this.maxImageBytes = limit;
    }

    /** An uploaded image ({@code upload:<id>}), for a vision model. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws java.io.IOException {
        byte[] bytes = media.get(ref.ref()).orElseThrow(() -> new java.io.IOException("webchat - upload " + ref.ref() + " is not kept"));
        if (bytes.length > maxBytes) {
            throw new java.io.IOException("webchat - upload " + ref.ref() + " is " + bytes.length + " bytes, over the " + maxBytes + "-byte limit");
        }
        return new Fetched(bytes, ref.mimeType());
    }

    private void sendFromPage(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        String conversation = id(body.path("conversation").asText(null), "conversation");
        String clientId = id(body.path("clientId").asText(null), "clientId");
        String text = body.path("text").asText("");
        dev.herald.web.access.WebUser viewer = WebGuard.user(ctx);
        List<MessageEvent.MediaRef> images = attachments(body.get("attachments"), viewer);
        if (text.isBlank() && images.isEmpty() || text.length() > MAX_TEXT) {
            throw new BadRequest(400, "text must be 1-" + MAX_TEXT + " characters (or empty with attachments), was " + text.length());
        }
        String title = shortTitle(body.path("title").asText(""));
        InboundSink inbound = sink;
        switch (state.get()) {
            case NEW -> {
                retryLater(ctx, "starting", "Herald is starting; the message is kept and sent again shortly");
                return;
            }
            case CLOSED -> {
                retryLater(ctx, "stopping", "Herald is stopping; the message is kept and sent again after it restarts");
                return;
            }
            case RUNNING -> {
            }
        }
        SessionSource source = new SessionSource(PLATFORM, conversation, ChatType.DM, owners.senderId(viewer, conversation),
                viewer.account() ? viewer.name() : "you", null, title);
        MessageEvent event = new MessageEvent(EventIds.next(), source, text, conversation + ":" + clientId, null,
                images, MessageEvent.Origin.USER, clock.instant());
        Admission admission = inbound.accept(event);
        switch (admission) {
            case ACCEPTED, ANSWERED, DUPLICATE -> WebJson.write(ctx, 200, Map.of("status", admission.name().toLowerCase(),
                    "turn", event.eventId()));
            case REFUSED -> WebJson.error(ctx, 403, "the gateway refused this message: web chat users are not authorized "
                    + "(check the authorization settings)");
            case REJECTED_STOPPING -> retryLater(ctx, "stopping", "Herald is stopping; the message is kept and sent again after it restarts");
            case REJECTED_UNAVAILABLE -> retryLater(ctx, "store_unavailable", "Herald cannot save messages at the moment; the message is "
                    + "kept here and sent again shortly");
        }
    }

    private void rename(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        String conversation = id(body.path("conversation").asText(null), "conversation");
        String title = body.path("title").asText("").strip();
        if (title.length() > MAX_TITLE) {
            throw new BadRequest(400, "title must be at most " + MAX_TITLE + " characters, was " + title.length());
        }
        owners.open(WebGuard.user(ctx), conversation);
        boolean stored = storage.sessions().rename(keyOf(conversation), title.isEmpty() ? null : title);
        WebJson.write(ctx, 200, Map.of("status", stored ? "renamed" : "local", "title", title));
    }

    private void delete(Context ctx) {
        String conversation = id(WebJson.body(ctx).path("conversation").asText(null), "conversation");
        owners.open(WebGuard.user(ctx), conversation);
        boolean stored = storage.sessions().hide(keyOf(conversation));
        WebJson.write(ctx, 200, Map.of("status", stored ? "hidden" : "local"));
    }

    private static void retryLater(Context ctx, String status, String message) {
        ctx.header("Retry-After", "2");
        WebJson.write(ctx, 503, Map.of("status", status, "error", message));
    }

    private void transcript(Context ctx) {
        String conversation = id(ctx.queryParam("c"), "c");
        long after = number(ctx.queryParam("after"));
        SessionKey key = keyOf(conversation);
        Optional<SessionEntry> entry = owners.open(WebGuard.user(ctx), conversation);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("conversation", conversation);
        if (entry.isEmpty()) {
            out.put("sessionId", null);
            out.put("rows", List.of());
            out.put("running", false);
            WebJson.write(ctx, 200, out);
            return;
        }
        String sessionId = storage.transcripts().compressionTip(entry.get().sessionId());
        Optional<TranscriptSession> session = storage.transcripts().session(sessionId);
        String continues = session.map(TranscriptSession::parentSessionId).orElse(null);
        out.put("sessionId", sessionId);
        out.put("continues", continues);
        var heardIn = heard;
        out.put("rows", TranscriptView.rows(storage.transcripts().load(sessionId), after, MAX_ROWS, MAX_TOOL_TEXT,
                continues == null ? null : session.get().startedAt(), ref -> heardIn.apply(key.value(), ref).orElse(null)));
        out.put("running", running(key));
        out.put("resumePending", entry.get().resumePending());
        WebJson.write(ctx, 200, out);
    }

    private boolean running(SessionKey key) {
        return storage.turns().inState(TurnState.RUNNING, 1_000).stream().anyMatch(t -> t.sessionKey().equals(key));
    }

    private void conversations(Context ctx) {
        SessionQuery query = new SessionQuery(SessionQuery.State.ALL, Optional.of(PLATFORM), Optional.empty(), 200, 0);
        List<Map<String, Object>> out = new ArrayList<>();
        dev.herald.web.access.WebUser viewer = WebGuard.user(ctx);
        for (SessionEntry e : storage.sessions().search(query)) {
            if (e.origin() == null || !ConversationOwners.visible(viewer, e)) {
                continue;
            }
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("id", e.origin().chatId());
            c.put("title", e.title() != null ? e.title() : e.origin().chatName() != null ? e.origin().chatName() : e.displayName());
            c.put("updatedAt", e.updatedAt().toString());
            c.put("resumePending", e.resumePending());
            c.put("hidden", e.hidden());
            out.add(c);
        }
        WebJson.write(ctx, 200, Map.of("conversations", out));
    }

    private void stream(Context ctx) {
        String conversation = id(ctx.queryParam("c"), "c");
        owners.open(WebGuard.user(ctx), conversation);
        ObjectNode hello = WebJson.MAPPER.createObjectNode().put("type", "hello").put("conversation", conversation)
                .put("state", state.get().name().toLowerCase());
        ChatStreams.Subscriber subscriber = streams.subscribe(conversation, encode(hello));
        try {
            otherNodes.opened(conversation);
            new EventStreamWriter(ctx.res(), HEARTBEAT_MS).pump(subscriber);
        } finally {
            streams.unsubscribe(subscriber);
        }
    }

    /** The session key of a conversation (its lane). */
    public SessionKey keyOf(String conversation) {
        return SessionKey.of(new SessionSource(PLATFORM, conversation, ChatType.DM, USER_ID, null, null, null), keyPolicy);
    }

    private static String id(String value, String name) {
        if (value == null || !ID.matcher(value).matches()) {
            throw new BadRequest(400, name + " must be 6-64 letters, digits, '_' or '-'");
        }
        return value;
    }

    private static long number(String value) {
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(value));
        } catch (NumberFormatException e) {
            throw new BadRequest(400, "after must be a whole number, was '" + (value.length() > 20 ? value.substring(0, 20) + "..." : value) + "'");
        }
    }

    private static String shortTitle(String title) {
        String line = title.strip().lines().findFirst().orElse("");
        return line.length() <= 80 ? line : line.substring(0, 80);
    }

    private static byte[] encode(ObjectNode frame) {
        return WebJson.bytes(frame);
    }
}
