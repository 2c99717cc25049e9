package dev.herald.web.api;

import dev.herald.core.Loopback;
import dev.herald.core.UserErrors;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.ImagePart;
import dev.herald.core.agent.TurnOptions;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PriorMessage;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.session.SessionSource;
import dev.herald.web.MediaStore;
import dev.herald.web.Routes;
import dev.herald.web.WebServer;
import dev.herald.web.access.SessionRevocations;
import dev.herald.web.access.WebAccess;
import dev.herald.web.api.CompletionWriter.Ending;
import dev.herald.web.api.CompletionWriter.Wait;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenAI-compatible API server as a Herald platform ({@code api_server}): {@code GET /v1/models},
 * {@code POST /v1/chat/completions} and the text subset of {@code POST /v1/responses}, streamed or not, on the shared
 * {@link WebServer}.
 *
 * <p>Honest compatibility: the {@code model} field names a model profile ({@link ModelNames}; unknown is a 400), every
 * other field is honoured or refused with a 400 naming it ({@link RequestFields}), model parameters reach the model as
 * {@link TurnOptions} (a session turn's travel on its {@link MessageEvent}), and a stateless
 * request's own {@code tools} run at the client: a call ends the response with {@code finish_reason: tool_calls} and
 * the next request, carrying the results, continues ({@link ToolRounds} keeps Herald's own rounds of that turn).
 *
 * <p>Two modes. <b>Stateless</b> (no session header): the body carries the whole history; this adapter
 * runs the injected {@link Agent} itself on a virtual thread ({@link StatelessTurn}) and stores nothing.
 * <b>Durable session</b> ({@code X-Herald-Session-Id}, or {@code X-Hermes-Session-Id}): only the body's
 * last user message is used; it becomes a {@link MessageEvent} for the gateway's {@link InboundSink},
 * which runs the turn with the continuity rules and a durable transcript.
 *
 * <p>Sessions belong to their caller. The caller is the {@code X-Herald-User} it names (default
 * {@value #USER_ID}); its session names are its own ({@link #chatOf}), so a caller naming another's
 * session id gets a session of its own, and its {@code X-Herald-Request-Id}s are scoped to that session.
 * Who may call at all is decided before anything else ({@link RequestGuard}).
 *
 * <p>How requests meet replies. Every waiting request owns a {@link ReplyExchange}, a mailbox its handler
 * thread drains into the HTTP response ({@link CompletionWriter}). Session requests are registered under
 * the event id <em>before</em> {@code accept} is called, because the gateway may answer (a slash command,
 * a fast turn) before {@code accept} returns; {@link #send} and {@link #progress} find the mailbox by the
 * message's correlation id (= event id). A send nobody waits for (the caller timed out or left, or an
 * automatic resume turn after a restart) returns {@code sent(null)}: the transcript already holds it.
 *
 * <p>Timeouts and disconnects. A request waits at most {@link Settings#requestTimeout()}, then gets 504;
 * a session turn keeps running in the gateway and its reply lands in the transcript, a stateless turn is
 * interrupted (nobody could receive its answer). A client that disconnects is noticed on the next write
 * and raises a stateless turn's {@code Interrupt}, which stops its tools as /stop does: a stream writes deltas,
 * keep-alives from 15 s on (then every second), and from the moment a tool starts a keep-alive at once and then every
 * second, so a client that leaves during a tool stops it within about two seconds; a non-streamed stateless answer
 * still waiting at 15 s commits 200 and writes a space every second before its JSON ({@link PaddedJson}). Jetty gives
 * no other signal. The gateway's session turns are not cut off by a client leaving: the turn belongs to the session,
 * runs to its end and its reply lands in the session's transcript; {@code /stop} in the same session stops it.
 *
 * <p>Lifecycle: NEW (routes answer 503 until the gateway calls {@link #start}) → RUNNING → CLOSED
 * ({@link #close} fails every waiting request with 503). Only start and close change the state.
 *
 * <p>Wiring: {@code web = new WebServer(settings.listen())} (or a shared one), {@code api = new
 * ApiServerPlatform(settings, agent, web)} (adds the routes), {@code web.start()}, then the gateway calls
 * {@code api.start(sink)} like any adapter's; at shutdown {@code api.close()}, then {@code web.close()}.
 */
public final class ApiServerPlatform implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(ApiServerPlatform.class);

    /** The platform id, {@code api_server}. */
    public static final Platform PLATFORM = Platform.of("api_server");
    /** The user id every session-mode message carries: a bearer key is one identity, not a secret to store. */
    public static final String USER_ID = "api";
    /** Replies go back over the request (or event stream) this node holds: its turns run here. */
    private static final Capabilities CAPABILITIES = new Capabilities(false, false, false, false, true, 1_000_000)
            .with(Capabilities.Delivery.WHERE_RECEIVED).withFiles(2L * 1024 * 1024 * 1024, false); // links, streamed from the workspace
    /** Where a file an answer sent is served: {@code /v1/files/file-<turn>-<index>/content}, with the API key. */
    static final String FILES_PATH = "/v1/files/";
    private static final Duration RETRY_STARTING = Duration.ofSeconds(5);
    private static final Duration RETRY_STOPPING = Duration.ofSeconds(10);
    /** How long a client waits before it sends again a request refused because the store cannot write. */
    static final Duration RETRY_STORE = Duration.ofSeconds(10);
    /** An inline answer (ANSWERED) is sent before accept returns; this bounds the wait when none came. */
    private static final Duration ANSWER_GRACE = Duration.ofSeconds(10);
    /** How often a retried request reads what became of its first attempt. */
    private static final Duration PRIOR_POLL = Duration.ofMillis(200);

    /**
     * The API server's settings, validated here, immutable; {@link #toString()} masks the key.
     *
     * @param host           interface the API server's {@link WebServer} listens on (see {@link #listen()})
     * @param port           its port (8642 by default; 0 picks a free one)
     * @param apiKey         the bearer key clients must send, or null to allow every caller (loopback only!)
     * @param maxBodyBytes   the largest request body accepted (1 MiB by default); larger ones get 413
     * @param requestTimeout how long a request waits for its reply (600 s by default); then 504
     * @param modelId        the model id advertised by {@code /v1/models} and echoed in responses ({@code herald})
     */
    public record Settings(String host, int port, String apiKey, long maxBodyBytes, Duration requestTimeout, String modelId,
            long maxImageBytes) {
        public static final long DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
        public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(600);
        public static final String DEFAULT_MODEL_ID = "herald";

        public Settings {
            Objects.requireNonNull(host, "host");
            apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
            requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
            modelId = modelId == null || modelId.isBlank() ? DEFAULT_MODEL_ID : modelId.strip();
            if (maxBodyBytes < 1) {
                throw new IllegalArgumentException("api_server - max body bytes must be positive, was " + maxBodyBytes);
            }
            if (requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("api_server - request timeout must be positive, was " + requestTimeout);
            }
            new WebServer.Settings(host, port); // validates host and port with the same messages
            if (maxImageBytes < 1) {
                throw new IllegalArgumentException("api_server - max image bytes must be positive, was " + maxImageBytes);
            }
        }

        public Settings(String host, int port, String apiKey, long maxBodyBytes, Duration requestTimeout, String modelId) {
            this(host, port, apiKey, maxBodyBytes, requestTimeout, modelId, ImagePart.DEFAULT_MAX_BYTES);
        }

        public Settings withMaxImageBytes(long bytes) {
            return new Settings(host, port, apiKey, maxBodyBytes, requestTimeout, modelId, bytes);
        }

        /** Loopback, port 8642, no key, 1 MiB bodies, 600 s timeout, model {@code herald}. */
        public static Settings defaults() {
            return new Settings("127.0.0.1", 8642, null, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT, DEFAULT_MODEL_ID);
        }

        public Settings withPort(int newPort) {
            return new Settings(host, newPort, apiKey, maxBodyBytes, requestTimeout, modelId, maxImageBytes);
        }

        public Settings withApiKey(String key) {
            return new Settings(host, port, key, maxBodyBytes, requestTimeout, modelId, maxImageBytes);
        }

        public Settings withMaxBodyBytes(long bytes) {
            return new Settings(host, port, apiKey, bytes, requestTimeout, modelId, maxImageBytes);
        }

        public Settings withRequestTimeout(Duration timeout) {
            return new Settings(host, port, apiKey, maxBodyBytes, timeout, modelId, maxImageBytes);
        }

        /** Where the {@link WebServer} hosting these routes should listen (the app may share one server). */
        public WebServer.Settings listen() {
            return new WebServer.Settings(host, port);
        }

        @Override
        public String toString() {
            return "api_server{host=" + host + ", port=" + port + ", key=" + (apiKey == null ? "none" : "****")
                    + ", maxBodyBytes=" + maxBodyBytes + ", requestTimeout=" + requestTimeout.toSeconds() + "s, model=" + modelId + "}";
        }
    }

    private enum State { NEW, RUNNING, CLOSED }

    private final Settings settings;
    private final Agent agent;
    private final Clock clock;
    private final RequestGuard guard;
    private final CompletionWriter writer;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private volatile InboundSink sink;
    /** Session-mode requests waiting for their reply, by event id (= the reply's correlation id). */
    private final Map<String, ReplyExchange> waiting = new ConcurrentHashMap<>();
    /** Every request waiting in either mode, so close() can answer them all. */
    private final Set<ReplyExchange> open = ConcurrentHashMap.newKeySet();
    private final ToolRounds rounds = new ToolRounds();
    private final ModelNames models;
    private volatile MediaStore media = MediaStore.inMemory();

    /**
     * Creates the adapter and adds its routes to {@code server}, which must not have started yet (the app
     * starts it once every feature has added its routes).
     */
    public ApiServerPlatform(Settings settings, Agent agent, WebServer server) {
        this(settings, agent, server, Clock.systemUTC());
    }

    public ApiServerPlatform(Settings settings, Agent agent, WebServer server, Clock clock) {
        this(settings, agent, server, clock, CompletionWriter.HEARTBEAT);
    }

    /** With a chosen keep-alive interval for event streams (tests use a short one). */
    ApiServerPlatform(Settings settings, Agent agent, WebServer server, Clock clock, Duration heartbeat) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.agent = Objects.requireNonNull(agent, "agent");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.guard = new RequestGuard(new WebAccess(settings.apiKey(), clock, server.authThrottle(), SessionRevocations.inMemory()),
                settings.maxBodyBytes());
        this.writer = new CompletionWriter(settings.modelId(), heartbeat);
        this.models = new ModelNames(settings.modelId(), agent);
        if (settings.apiKey() == null && !Loopback.isHost(server.settings().host())) {
            log.warn("api_server - no API key while listening on {}: only clients on this machine are served; set a key to serve "
                    + "other machines", server.settings().host());
        }
        log.info("api_server - configured ({}; agent {})", settings, agent.describe());
        server.add(Routes.of(PLATFORM.id(), this::register));
        server.errorFormat("/v1/", (status, message) -> OpenAiWire.error(ApiError.fromServer(status, message)));
    }

    /** Accepts the API keys of web accounts ({@code hk_...}) besides the configured key; before the server starts. */
    public void useApiKeys(dev.herald.web.access.ApiKeys keys) {
        guard.useApiKeys(java.util.Objects.requireNonNull(keys, "keys"));
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public void start(InboundSink inbound) {
        Objects.requireNonNull(inbound, "sink");
        if (state.get() != State.NEW) {
            throw new IllegalStateException("api_server - start() called while " + state.get().name().toLowerCase());
        }
        this.sink = inbound; // before the state change, so a running handler always sees the sink
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("api_server - start() called while " + state.get().name().toLowerCase());
        }
        inbound.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "serving /v1/chat/completions, /v1/responses and /v1/models");
        log.info("api_server - accepting requests (model {}, key {})", settings.modelId(), settings.apiKey() == null ? "none" : "required");
    }

    @Override
    public SendResult send(OutboundMessage message) {
        ReplyExchange exchange = message.correlationId() == null ? null : waiting.get(message.correlationId());
        if (exchange == null) {
            log.debug("api_server - no request waits for this {} (correlation {}, {} chars); the transcript holds it",
                    message.kind(), message.correlationId(), message.text().length());
            return SendResult.sent(null);
        }
        if (message.file() != null) {
            message = withLink(message, exchange.linkBase());
        }
        switch (message.kind()) {
            case REPLY, COMMAND_RESPONSE -> {
                String whole = exchange.addPart(message);
                if (whole != null) {
                    exchange.finish(whole, "stop", null);
                }
            }
            case CUT_OFF_REPLY -> {
                String whole = exchange.addPart(message);
                if (whole != null) {
                    exchange.fail(ApiError.cutOff(whole));
                }
            }
            case ERROR -> {
                String whole = exchange.addPart(message);
                if (whole != null) {
                    exchange.fail(ApiError.badGateway(whole));
                }
            }
            case NOTICE, PROMPT -> {
                log.debug("api_server - {} for a waiting request not forwarded (correlation {}, {} chars)",
                        message.kind(), message.correlationId(), message.text().length());
                return SendResult.sent(null);
            }
        }
        return SendResult.sent(exchange.completionId() + ":" + message.part());
    }

    /**
     * A file part as the client reads it: its caption and a Markdown link to the file
     * ({@code [report.pdf](http://host/v1/files/file-12-0/content)}), after the text before it.
     */
    private static OutboundMessage withLink(OutboundMessage m, String base) {
        return new OutboundMessage(m.target(), fileText(m.file(), m.text(), base), m.kind(), m.replyToMessageId(), m.correlationId(),
                m.part(), m.parts(), m.idempotencyKey(), m.file());
    }

    /** What the client reads for a file: a blank line, the caption, and the Markdown link (the caption alone without a ref). */
    private static String fileText(dev.herald.core.platform.OutboundFile file, String caption, String base) {
        java.util.Optional<long[]> ref = dev.herald.core.platform.OutboundFile.parseReplyRef(file.ref());
        if (ref.isEmpty()) {
            return caption;
        }
        String url = base + FILES_PATH + "file-" + ref.get()[0] + "-" + ref.get()[1] + "/content";
        String name = file.name().replace("[", "(").replace("]", ")");
        return "\n\n" + (caption.isBlank() ? "" : caption.strip() + "\n") + "[" + name + "](" + url + ")";
    }

    /**
     * {@code GET /v1/files/file-<turn>-<index>/content} with the API key: a file an answer of an API session sent (the link
     * in its text); only files of API turns (see {@link dev.herald.web.ReplyFileDownload}).
     */
    private void fileContent(Context ctx) {
        java.util.regex.Matcher m = FILE_ID.matcher(ctx.pathParam("id"));
        InboundSink inbound = sink;
        dev.herald.web.ReplyFileDownload.Found found = m.matches() && inbound != null
                ? dev.herald.web.ReplyFileDownload.found(inbound.sentFile(PLATFORM, Long.parseLong(m.group(1)), Integer.parseInt(m.group(2))))
                : new dev.herald.web.ReplyFileDownload.Found.Missing(404, "no such file: file ids look like file-12-0");
        switch (found) {
            case dev.herald.web.ReplyFileDownload.Found.File f -> {
                try {
                    dev.herald.web.ReplyFileDownload.write(ctx, f.file());
                } catch (java.io.IOException e) {
                    throw ApiError.internal("the file could not be read: " + f.file().name());
                }
            }
            case dev.herald.web.ReplyFileDownload.Found.Missing miss -> throw ApiError.fromServer(miss.status(), miss.message());
        }
    }

    private static final java.util.regex.Pattern FILE_ID = java.util.regex.Pattern.compile("file-([1-9][0-9]{0,17})-([0-9]{1,4})");

    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        ReplyExchange exchange = correlationId == null ? null : waiting.get(correlationId);
        if (exchange == null) {
            return;
        }
        if (event instanceof StreamEvent.TextDelta delta) {
            exchange.delta(delta.text());
        } else if (event instanceof StreamEvent.Usage usage) {
            exchange.addUsage(usage.inputTokens(), usage.outputTokens());
        }
    }

    /** Keeps the images API sessions send in {@code store} (the app passes one under Herald's home). */
    public void useMediaStore(MediaStore store) {
        this.media = Objects.requireNonNull(store, "store");
    }

    /** The bytes of an image an API session sent ({@code upload:<id>}), for a vision model. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws java.io.IOException {
        byte[] bytes = media.get(ref.ref()).orElseThrow(() -> new java.io.IOException(
                "api_server - image " + ref.ref() + " is not kept (any more); the model gets the reference only"));
        if (bytes.length > maxBytes) {
            throw new java.io.IOException("api_server - image " + ref.ref() + " is " + bytes.length + " bytes, over the " + maxBytes
                    + "-byte limit");
        }
        return new Fetched(bytes, ref.mimeType());
    }

    @Override
    public void close() {
        State was = state.getAndSet(State.CLOSED);
        if (was == State.CLOSED) {
            return;
        }
        int failed = 0;
        for (ReplyExchange exchange : open) {
            if (exchange.fail(ApiError.unavailable("api_server is stopping; retry after Herald restarts", "stopping", RETRY_STOPPING))) {
                failed++;
            }
            exchange.interrupt("api_server closing");
        }
        log.info("api_server - stopped ({} waiting requests answered 503)", failed);
        InboundSink s = sink;
        if (s != null) {
            s.connectionChanged(PLATFORM, ConnectionState.STOPPED, "closed");
        }
    }

    private void register(RoutesConfig routes) {
        routes.get("/v1/models", ctx -> guarded(ctx, this::models));
        routes.post("/v1/chat/completions", ctx -> guarded(ctx, this::chatCompletions));
        routes.post("/v1/responses", ctx -> guarded(ctx, this::responses));
        routes.get(FILES_PATH + "{id}/content", ctx -> guarded(ctx, this::fileContent));
    }

    private void guarded(Context ctx, Consumer<Context> handler) {
        try {
            requireRunning();
            guard.authorize(ctx);
            handler.accept(ctx);
        } catch (ApiError e) {
            if (e.status() >= 500) {
                log.info("api_server - {} {} answered {} ({})", ctx.method(), ctx.path(), e.status(), e.getMessage());
            }
            CompletionWriter.writeError(ctx, e);
        } catch (RuntimeException e) {
            if (dev.herald.core.session.StoreException.isOutage(e)) {
                log.info("api_server - {} {} answered 503: the store cannot write ({})", ctx.method(), ctx.path(), e.getMessage());
                CompletionWriter.writeError(ctx, storeUnavailable());
                return;
            }
            log.warn("api_server - {} {} failed unexpectedly; answered 500", ctx.method(), ctx.path(), e);
            CompletionWriter.writeError(ctx, ApiError.internal(UserErrors.REQUEST_FAILED));
        }
    }

    private void models(Context ctx) {
        CompletionWriter.json(ctx, 200, OpenAiWire.models(models.ids(), clock.instant().getEpochSecond()));
    }

    private void chatCompletions(Context ctx) {
        RequestGuard.requireJson(ctx);
        String session = RequestGuard.sessionName(ctx);
        String requestId = RequestGuard.requestId(ctx);
        ChatRequest request = ChatRequest.parse(guard.readBody(ctx), settings.maxImageBytes());
        complete(ctx, request, session, requestId, writer::respond, "chatcmpl-");
    }

    private void responses(Context ctx) {
        RequestGuard.requireJson(ctx);
        String session = RequestGuard.sessionName(ctx);
        String requestId = RequestGuard.requestId(ctx);
        ResponsesRequest request = ResponsesRequest.parse(guard.readBody(ctx), settings.maxImageBytes());
        ResponsesWriter responder = new ResponsesWriter(writer, request);
        complete(ctx, request.chat(), session, requestId, responder::respond, "resp_");
    }

    /** Writes one response from an exchange: chat completions or the Responses API. */
    @FunctionalInterface
    interface Responder {
        Ending respond(Context ctx, ReplyExchange exchange, ChatRequest request, Wait wait);
    }

    private void complete(Context ctx, ChatRequest request, String session, String requestId, Responder responder, String idPrefix) {
        long t0 = System.nanoTime();
        String profile = models.profile(request.model());
        boolean images = !request.images().isEmpty() || request.history().stream().anyMatch(ChatMessage::hasImages);
        if (images && (session == null || profile != null)) {
            // a session naming no model uses its own choice: a text-only one keeps the attachment line and says so once
            models.requireVision(profile);
        }
        long deadline = t0 + settings.requestTimeout().toNanos();
        Ending ending = session == null
                ? stateless(ctx, request, profile, deadline, responder, idPrefix)
                : durable(ctx, request, profile, session, requestId, deadline, responder, idPrefix);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (ending == Ending.REPLIED) {
            log.debug("api_server - {} {} ({}, stream={}, {} ms)", ctx.path(), ending, session == null ? "stateless" : "session " + session,
                    request.stream(), ms);
        } else {
            log.info("api_server - {} {} ({}, stream={}, {} ms)", ctx.path(), ending, session == null ? "stateless" : "session " + session,
                    request.stream(), ms);
        }
    }

    private Ending stateless(Context ctx, ChatRequest request, String profile, long deadline, Responder responder, String idPrefix) {
        ReplyExchange exchange = StatelessTurn.start(agent, request, request.options(profile), PLATFORM.id(), rounds, idPrefix);
        track(exchange);
        try {
            String timeout = "no reply within " + human(settings.requestTimeout())
                    + " (api_server request timeout); the turn was stopped, retry or raise the timeout";
            Ending ending = responder.respond(ctx, exchange, request, new Wait(deadline, timeout));
            switch (ending) {
                case DISCONNECTED -> exchange.interrupt("client disconnected");
                case TIMED_OUT -> exchange.interrupt("request timed out after " + human(settings.requestTimeout()));
                default -> {
                }
            }
            return ending;
        } finally {
            open.remove(exchange);
        }
    }

    private Ending durable(Context ctx, ChatRequest request, String profile, String session, String requestId, long deadline,
            Responder responder, String idPrefix) {
        if (!request.tools().isEmpty()) {
            throw ApiError.badRequest("'tools' (tools the client runs) work in stateless requests only: the client holds that "
                    + "conversation; a durable session (X-Herald-Session-Id) runs Herald's own tools. Leave out the header or the tools",
                    "tools");
        }
        InboundSink inbound = sink;
        String user = RequestGuard.userName(ctx, USER_ID);
        String chat = chatOf(user, session);
        SessionSource source = new SessionSource(PLATFORM, chat, ChatType.DM, user, null, null, null);
        MessageEvent event = new MessageEvent(EventIds.next(), source, request.userMessage(),
                requestId == null ? null : chat + ":" + requestId, null, storedImages(request), MessageEvent.Origin.USER, clock.instant(),
                new TurnOptions(profile, request.parameters(), List.of(), List.of()));
        ReplyExchange exchange = new ReplyExchange(idPrefix + event.eventId(), null);
        exchange.linkBase(ctx.scheme() + "://" + ctx.host()); // the client's own address for the links to files its answer sends
        waiting.put(event.eventId(), exchange);
        track(exchange);
        try {
            Wait wait;
            Admission admission = admit(inbound, event, session, requestId);
            if (admission == Admission.DUPLICATE) {
                answerFromFirstAttempt(inbound, exchange, event.messageId(), session, requestId, deadline);
                wait = new Wait(deadline, "no reply within " + human(settings.requestTimeout()) + " (api_server request timeout) "
                        + "to request id '" + requestId + "', which is still running; its reply will be in session '" + session + "'");
            } else if (admission == Admission.ANSWERED) {
                long graceEnd = System.nanoTime() + ANSWER_GRACE.toNanos();
                wait = new Wait(Math.min(deadline, graceEnd), "the gateway answered '" + shorten(event.text())
                        + "' inline but sent no text within " + human(ANSWER_GRACE));
            } else {
                wait = new Wait(deadline, "no reply within " + human(settings.requestTimeout()) + " (api_server request "
                        + "timeout); the turn continues and its reply will be in session '" + session + "'");
            }
            return responder.respond(ctx, exchange, request, wait);
        } finally {
            waiting.remove(event.eventId());
            open.remove(exchange);
        }
    }

    /**
     * A request whose {@code X-Herald-Request-Id} was sent before (the client's retry after a timeout, a 503 or a lost
     * connection, to this node or another): it is answered with what became of the first attempt, read from the store
     * every {@link #PRIOR_POLL} until its turn ends or the request's deadline passes. Nothing runs twice.
     */
    private void answerFromFirstAttempt(InboundSink inbound, ReplyExchange exchange, String messageId, String session, String requestId,
            long deadline) {
        Thread.ofVirtual().name("api_server-retry-" + requestId).start(() -> {
            try {
                while (!exchange.ended() && System.nanoTime() - deadline < 0) {
                    Optional<PriorMessage> prior = inbound.prior(PLATFORM, messageId);
                    switch (prior.orElse(null)) {
                        case PriorMessage.Answered a -> {
                            StringBuilder whole = new StringBuilder(a.reply());
                            for (dev.herald.core.platform.OutboundFile f : a.files()) {
                                whole.append(fileText(f, f.caption() == null ? "" : f.caption(), exchange.linkBase()));
                            }
                            exchange.finish(whole.toString(), "stop", null);
                            return;
                        }
                        case PriorMessage.Ended e -> {
                            exchange.fail(ApiError.conflict("request id '" + requestId + "' was sent before to session '" + session
                                    + "' and ended without an answer: " + e.why(), RequestGuard.REQUEST_ID_HEADER));
                            return;
                        }
                        case null -> {
                            // given back meanwhile (withdrawn at a stop): the client may send it as new
                            exchange.fail(ApiError.unavailable("request id '" + requestId + "' was withdrawn while Herald stopped; "
                                    + "send it again", "retry", RETRY_STARTING));
                            return;
                        }
                        case PriorMessage.Pending p -> Thread.sleep(PRIOR_POLL.toMillis());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn("api_server - could not read what became of request id {} of session {}: {}", requestId, session, e.toString());
                exchange.fail(ApiError.unavailable("Herald could not look up the first attempt of request id '" + requestId
                        + "' just now; retry shortly", "retry", RETRY_STARTING));
            }
        });
    }

    /** A session's images are kept in the media store; the transcript holds their reference, as for a photo from a chat. */
    private List<MessageEvent.MediaRef> storedImages(ChatRequest request) {
        if (request.continuation()) {
            throw ApiError.badRequest("a durable session (X-Herald-Session-Id) takes one new user message per request; tool results "
                    + "of client tools belong to stateless requests", "messages");
        }
        List<MessageEvent.MediaRef> refs = new java.util.ArrayList<>();
        for (ImagePart image : request.images()) {
            try {
                refs.add(new MessageEvent.MediaRef("image", media.put(java.util.Base64.getDecoder().decode(image.base64())), image.mimeType()));
            } catch (java.io.IOException e) {
                log.warn("api_server - could not keep an image of a session request: {}", e.toString());
                throw ApiError.internal(UserErrors.REQUEST_FAILED);
            }
        }
        return refs;
    }

    /**
     * The chat (and so the durable session) a caller's session name means: the caller's own. The default
     * user keeps the bare name (sessions made before callers were told apart keep working); any other user's
     * sessions are {@code <user>/<session>}. Neither part may contain '/', so two callers never share a chat.
     */
    static String chatOf(String user, String session) {
        return USER_ID.equals(user) ? session : user + "/" + session;
    }

    /** Hands the event to the gateway; anything but ACCEPTED, ANSWERED or DUPLICATE (a retry) ends the request here. */
    private static Admission admit(InboundSink inbound, MessageEvent event, String session, String requestId) {
        Admission admission;
        try {
            admission = inbound.accept(event);
        } catch (RuntimeException e) {
            if (dev.herald.core.session.StoreException.isOutage(e)) {
                throw storeUnavailable();
            }
            log.warn("api_server - the gateway failed to accept a message for session {} (event {})", session, event.eventId(), e);
            throw ApiError.internal(UserErrors.REQUEST_FAILED);
        }
        return switch (admission) {
            case ACCEPTED, ANSWERED, DUPLICATE -> admission;
            case REFUSED -> throw ApiError.forbidden(
                    "the gateway refused this request: api_server callers are not authorized to talk to the agent (check the authorization settings)");
            case REJECTED_STOPPING -> throw ApiError.unavailable(
                    "Herald is stopping and takes no new turns; retry after it restarts", "stopping", RETRY_STOPPING);
            case REJECTED_UNAVAILABLE -> throw storeUnavailable();
        };
    }

    /** 503 with Retry-After: the store cannot write, so the message was not taken (nothing is stored; send it again). */
    static ApiError storeUnavailable() {
        return ApiError.unavailable(UserErrors.storeUnavailable(), "store_unavailable", RETRY_STORE);
    }

    /** Adds a waiting request to the set close() answers; one that slipped in after close() is answered here. */
    private void track(ReplyExchange exchange) {
        open.add(exchange);
        if (state.get() == State.CLOSED && exchange.fail(
                ApiError.unavailable("api_server is stopping; retry after Herald restarts", "stopping", RETRY_STOPPING))) {
            exchange.interrupt("api_server closing");
        }
    }

    private void requireRunning() {
        switch (state.get()) {
            case NEW -> throw ApiError.unavailable("api_server is starting; retry shortly", "starting", RETRY_STARTING);
            case CLOSED -> throw ApiError.unavailable("api_server has stopped; retry after Herald restarts", "stopping", RETRY_STOPPING);
            case RUNNING -> {
            }
        }
    }

    private static String human(Duration d) {
        return d.toMillis() < 10_000 ? d.toMillis() + " ms" : d.toSeconds() + " s";
    }

    private static String shorten(String text) {
        String line = text.strip().lines().findFirst().orElse("");
        return line.length() <= 40 ? line : line.substring(0, 40) + "...";
    }

}
