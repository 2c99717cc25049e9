package dev.herald.web.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.Destination;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.Relay;
import dev.herald.core.platform.SendResult;
import dev.herald.core.session.SessionSource;
import dev.herald.web.Routes;
import dev.herald.web.WebServer;
import dev.herald.web.LimitedBody;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inbound webhooks as a Herald platform ({@code webhook}): {@code POST /webhooks/<route>} on the shared
 * {@link WebServer}. Non-interactive: nobody answers in real time, so a resumed turn continues on its own.
 *
 * <p>A request passes, in this order and before anything is stored: the route exists (404), the body fits
 * the limit (413), the signature matches the route's secret (401), the body is JSON (400). Then the prompt
 * is built from the payload ({@link PromptTemplate}) and handed to the gateway as a message from the route
 * (chat = user = route name); the request is answered {@code 202} with the event id once the gateway has
 * stored it. What the signature check found unique (the body's hash, or the signed {@code webhook-id};
 * else a delivery-id header: {@code X-GitHub-Delivery}, {@code X-Gitlab-Event-UUID}, {@code X-Request-Id})
 * becomes the message id, so a redelivered or replayed webhook runs no second turn, even under a new
 * delivery id (answered 200 {@code duplicate}); a Standard Webhooks request must be signed within five
 * minutes of its arrival; GitHub's {@code ping} (sent when a webhook is created) is answered 200 {@code pong}
 * without a turn. A prompt that would read as a slash command is prefixed so that a payload can never
 * drive /stop, /new or /restart.
 *
 * <p>The turn's reply goes where the route says: to the log (through {@link #send}), or to a chat on another
 * platform, which the route names ({@link #relays}, registered with the gateway as data); the gateway's outbox then sends it there
 * itself, split to that platform's limit, tracked part by part and retried like any reply. Notices (restart
 * banners) are logged, not forwarded. Secrets and signatures are never logged.
 *
 * <p>Lifecycle: NEW (routes answer 503) → RUNNING (after the gateway calls {@link #start}) → CLOSED.
 */
public final class WebhookPlatform implements PlatformAdapter {
    private static final Logger log = LoggerFactory.getLogger(WebhookPlatform.class);

    public static final Platform PLATFORM = Platform.of("webhook");
    /** How much of a reply a {@code log} delivery shows. */
    public static final int LOG_PREVIEW = 200;
    private static final Capabilities CAPABILITIES = new Capabilities(false, false, false, false, false, 1_000_000);
    private static final List<String> DELIVERY_HEADERS = List.of("X-GitHub-Delivery", "X-Gitlab-Event-UUID", "X-Request-Id");
    private static final Pattern DELIVERY_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param maxBodyBytes the largest body accepted (413 above it)
     * @param routes       the routes, by name
     */
    public record Settings(long maxBodyBytes, List<WebhookRoute> routes) {
        public static final long DEFAULT_MAX_BODY_BYTES = 1_048_576;

        public Settings {
            if (maxBodyBytes < 1) {
                throw new IllegalArgumentException("webhook - max body bytes must be positive, was " + maxBodyBytes);
            }
            routes = List.copyOf(routes);
        }
    }

    private enum State { NEW, RUNNING, CLOSED }

    private final Settings settings;
    private final Map<String, WebhookRoute> routes = new LinkedHashMap<>();
    private final Clock clock;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private volatile InboundSink sink;

    /** Creates the platform and adds its route to {@code server} (which must not have started yet). */
    public WebhookPlatform(Settings settings, WebServer server, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        for (WebhookRoute r : settings.routes()) {
            if (routes.putIfAbsent(r.name(), r) != null) {
                throw new IllegalArgumentException("webhook - route " + r.name() + " is defined twice");
            }
        }
        server.add(Routes.of(PLATFORM.id(), r -> r.post("/webhooks/{route}", this::handle)));
        log.info("webhook - configured {} route(s): {}", routes.size(), routes.values());
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
        this.sink = Objects.requireNonNull(inbound, "sink");
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("webhook - start() called while " + state.get().name().toLowerCase(java.util.Locale.ROOT));
        }
        inbound.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "serving " + routes.size() + " route(s) at /webhooks/<route>");
    }

    /**
     * The routes that deliver to another platform's chat, as relays for the gateway's registry (a route's chat is its
     * name): the outbox sends their replies there, split and tracked.
     */
    public List<Relay> relays() {
        List<Relay> out = new java.util.ArrayList<>();
        for (WebhookRoute route : routes.values()) {
            if (route.deliver() instanceof Delivery.Forward to) {
                out.add(new Relay(PLATFORM, route.name(), new Destination(to.platform(), to.target())));
            }
        }
        return List.copyOf(out);
    }

    /** What reaches the route itself is logged: replies of {@code log} routes, and notices and command answers. */
    @Override
    public SendResult send(OutboundMessage message) {
        WebhookRoute route = routes.get(message.target().chatId());
        if (route == null) {
            log.warn("webhook - a {} for route {}, which is no longer configured, was dropped ({} chars)", message.kind(),
                    message.target().chatId(), message.text().length());
            return SendResult.sent(null);
        }
        boolean result = message.kind().isAnswer();
        log.info("webhook - route {} {} ({} chars): {}", route.name(), result ? "reply" : message.kind().name().toLowerCase(java.util.Locale.ROOT),
                message.text().length(), preview(message.text()));
        return SendResult.sent(null);
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) != State.CLOSED && sink != null) {
            sink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "closed");
        }
    }

    // ---- inbound --------------------------------------------------------------------------------

    private void handle(Context ctx) {
        long t0 = System.nanoTime();
        String name = ctx.pathParam("route");
        if (state.get() != State.RUNNING) {
            reply(ctx, 503, "error", "webhook platform is " + (state.get() == State.NEW ? "starting" : "stopped") + "; retry shortly");
            ctx.header("Retry-After", "10");
            return;
        }
        WebhookRoute route = routes.get(name);
        if (route == null) {
            reply(ctx, 404, "error", "no webhook route named '" + shorten(name) + "'");
            return;
        }
        byte[] body = readBody(ctx);
        if (body == null) {
            log.info("webhook - route {}: body over {} bytes refused (413, nothing stored)", name, settings.maxBodyBytes());
            reply(ctx, 413, "error", "the body is larger than " + settings.maxBodyBytes() + " bytes");
            return;
        }
        SignatureCheck.Verified verified = SignatureCheck.verify(route.signature(), route.secret(), ctx::header, body, clock.instant());
        if (!verified.passed()) {
            log.info("webhook - route {}: request from {} refused: {} (401, nothing stored)", name, ctx.ip(), verified.problem());
            reply(ctx, 401, "error", "signature check failed for route '" + name + "'");
            return;
        }
        JsonNode payload;
        try {
            payload = JSON.readTree(body);
        } catch (IOException e) {
            payload = null;
        }
        if (payload == null || payload.isMissingNode()) {
            log.info("webhook - route {}: body is not JSON ({} bytes; 400, nothing stored)", name, body.length);
            reply(ctx, 400, "error", "the body is not valid JSON");
            return;
        }
        if ("ping".equals(ctx.header("X-GitHub-Event"))) {
            log.info("webhook - route {}: GitHub ping answered (nothing stored)", name);
            reply(ctx, 200, "status", "pong");
            return;
        }
        admit(ctx, route, payload, body.length, verified.dedupeId(), t0);
    }

    /**
     * Hands the event to the gateway. Its message id (the gateway's durable dedupe) is what the signature
     * check found unique ({@link SignatureCheck.Verified#dedupeId}), else the delivery-id header.
     */
    private void admit(Context ctx, WebhookRoute route, JsonNode payload, int bytes, String verifiedId, long t0) {
        String deliveryId = deliveryId(ctx);
        String unique = verifiedId != null ? verifiedId : deliveryId;
        SessionSource source = new SessionSource(PLATFORM, route.name(), ChatType.DM, route.name(), null, null, route.name());
        MessageEvent event = MessageEvent.text(source, prompt(route, payload), unique == null ? null : route.name() + ":" + unique,
                clock.instant());
        Admission a;
        try {
            a = sink.accept(event);
        } catch (RuntimeException e) {
            if (dev.herald.core.session.StoreException.isOutage(e)) {
                storeUnavailable(ctx);
                return;
            }
            log.warn("webhook - route {}: the gateway failed to accept the event; answered 500", route.name(), e);
            reply(ctx, 500, "error", "the gateway could not take the event; see the server log");
            return;
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        switch (a) {
            case ACCEPTED, ANSWERED -> {
                log.info("webhook - route {}: accepted event {} ({} bytes{}, {} ms)", route.name(), event.eventId(), bytes,
                        deliveryId == null ? "" : ", delivery " + deliveryId, ms);
                ctx.status(202).contentType("application/json")
                        .result(JSON.createObjectNode().put("status", "accepted").put("event_id", event.eventId()).toString());
            }
            case DUPLICATE -> {
                log.info("webhook - route {}: a request already received was sent again{} (200 duplicate, no second turn)", route.name(),
                        deliveryId == null ? "" : " as delivery " + deliveryId);
                reply(ctx, 200, "status", "duplicate");
            }
            case REFUSED -> reply(ctx, 403, "error", "the webhook platform is not authorized to talk to the agent (check the access settings)");
            case REJECTED_STOPPING -> {
                ctx.header("Retry-After", "10");
                reply(ctx, 503, "error", "Herald is stopping; retry after it restarts");
            }
            case REJECTED_UNAVAILABLE -> storeUnavailable(ctx);
        }
    }

    /** 503 with Retry-After: the store cannot write, so nothing was stored; the sender delivers the event again. */
    private void storeUnavailable(Context ctx) {
        ctx.header("Retry-After", "10");
        reply(ctx, 503, "error", "Herald cannot save events at the moment; nothing was stored, send it again later");
    }

    /** The prompt for this payload; one that would read as a slash command is marked as webhook text instead. */
    private static String prompt(WebhookRoute route, JsonNode payload) {
        String text = PromptTemplate.render(route.prompt(), payload);
        SessionSource probe = SessionSource.dm(PLATFORM, route.name(), route.name());
        if (MessageEvent.text(probe, text, null, java.time.Instant.EPOCH).isCommand()) {
            return "[webhook " + route.name() + "] " + text;
        }
        return text;
    }

    /** The body, or null when it is over the limit (declared or sent; {@link LimitedBody}). */
    private byte[] readBody(Context ctx) {
        try {
            return LimitedBody.read(ctx, settings.maxBodyBytes());
        } catch (IOException e) {
            return new byte[0];
        }
    }

    private static String deliveryId(Context ctx) {
        for (String h : DELIVERY_HEADERS) {
            String v = ctx.header(h);
            if (v != null && DELIVERY_ID.matcher(v.strip()).matches()) {
                return v.strip();
            }
        }
        return null;
    }

    private static void reply(Context ctx, int status, String field, String text) {
        ctx.status(status).contentType("application/json").result(JSON.createObjectNode().put(field, text).toString());
    }

    static String preview(String text) {
        String oneLine = text.replace('\n', ' ');
        return oneLine.length() <= LOG_PREVIEW ? oneLine : oneLine.substring(0, LOG_PREVIEW) + "...";
    }

    private static String shorten(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
