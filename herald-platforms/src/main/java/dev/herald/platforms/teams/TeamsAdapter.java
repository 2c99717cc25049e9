package dev.herald.platforms.teams;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
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
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.JwksVerifier;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Microsoft Teams through the Bot Framework ({@code teams}): activities arrive on Herald's route
 * ({@link TeamsWebhook}, read by {@link TeamsActivities}), replies go out through the Bot Connector
 * ({@link TeamsConnector}) at the serviceUrl the conversation's last verified activity named, which is kept in the
 * store's platform state (so a reply after a restart, or from another node, knows where to go).
 *
 * <p>Replies answer the activity they follow ({@code /activities/{activityId}}), in the same conversation and channel
 * thread; the agent's Markdown goes out as Teams markdown ({@code textFormat: markdown}). An approval question goes out
 * as an Adaptive Card whose {@code Action.Submit} buttons carry the command; a press comes back as a message with
 * {@code value}. The agent's images go out inline (a base64 {@code data:} URL in {@code contentUrl}, which Teams shows
 * in personal chats, group chats and channels); other files cannot go to Teams without the file consent flow, so
 * the chat gets a line naming the file instead. A typing activity is sent while a turn runs.
 *
 * <p>Sends have no idempotency key on the Connector: a part whose answer was lost to a crash is sent again (at least
 * once).
 */
public final class TeamsAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(TeamsAdapter.class);

    public static final Platform PLATFORM = Platform.of("teams");
    /** Teams takes messages of about 28 KB; Herald's parts stay well under. */
    public static final int MAX_TEXT = 12_000;
    /** The largest image sent inline (base64 grows it by a third). */
    public static final long MAX_FILE_BYTES = 3L * 1024 * 1024;
    static final Set<String> INLINE_IMAGES = Set.of("image/png", "image/jpeg", "image/gif");
    private static final Capabilities CAPABILITIES = new Capabilities(true, true, false, true, false, true, true, false, MAX_TEXT,
            TextFormat.MARKDOWN, Capabilities.Delivery.ANY_NODE, MAX_FILE_BYTES);
    private static final String SERVICE_URL_KEY = "service_url.";

    private final TeamsSettings settings;
    private final TeamsSettings.Timing timing;
    private final Clock clock;
    private final PlatformState state;
    private final TeamsConnector connector;
    private final JwksVerifier verifier;
    private final TeamsWebhook webhook;
    private final Map<String, Instant> lastTyping = new ConcurrentHashMap<>();
    private final Map<String, String> serviceUrls = new ConcurrentHashMap<>();
    private volatile InboundSink sink;

    public TeamsAdapter(TeamsSettings settings, TeamsSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.state = Objects.requireNonNull(state, "state");
        this.connector = new TeamsConnector(settings, timing, clock);
        JwksVerifier.Config keys = JwksVerifier.Config.of("teams", URI.create(settings.openidMetadataUrl()), true, Set.of(TeamsSettings.ISSUER),
                settings.appId()).withRefreshInterval(timing.keyRefresh());
        this.verifier = new JwksVerifier(keys, clock);
        this.webhook = new TeamsWebhook(settings, verifier, new TeamsActivities(PLATFORM, settings.requireMention()), clock, this::receive);
    }

    void serveOn(InboundHttp http) {
        webhook.serveOn(http);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    /** Gets the bot's token once: refused credentials stop the start naming the keys; an unreachable endpoint is logged. */
    @Override
    public void start(InboundSink inboundSink) {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "getting the bot's token");
        try {
            connector.token();
            log.info("teams - the bot's token for app {} was issued by {}", settings.appId(), settings.tokenUrl());
        } catch (TeamsConnector.TokenRefused e) {
            if (!e.transientFailure) {
                inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "credentials refused");
                throw new IllegalStateException(e.getMessage());
            }
            log.warn("{} (serving the route anyway; sends are retried)", e.getMessage());
        } catch (IOException e) {
            log.warn("teams - the token endpoint is not reachable now ({}); serving the route, sends are retried", connector.describe(e));
        }
        sink = inboundSink;
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "activities at " + InboundHttp.pathOf(PLATFORM, "messages"));
    }

    @Override
    public SendResult send(OutboundMessage m) {
        Optional<String> serviceUrl = serviceUrl(m.target().chatId());
        if (serviceUrl.isEmpty()) {
            return SendResult.failed("teams - no serviceUrl is known for conversation " + m.target().chatId()
                    + " (Herald has had no activity from it yet; the Bot Connector names it on each)", false);
        }
        String conversation = conversation(m.target());
        String replyTo = TeamsActivities.activityOf(m.replyToMessageId());
        ObjectNode activity = m.file() != null ? fileActivity(m) : textActivity(m);
        if (activity == null) {
            return SendResult.failed("teams - the file " + m.file().name() + " could not be read", false);
        }
        if (replyTo != null) {
            activity.put("replyToId", replyTo);
        }
        try {
            JsonHttp.Reply r = connector.post(serviceUrl.get(), conversation, replyTo, activity);
            if (r.ok()) {
                String id = r.body().path("id").asText("");
                return SendResult.sent(id.isEmpty() ? null : id);
            }
            return connector.failure(m.file() != null ? "sending the file " + m.file().name() : "sending a message", r);
        } catch (TeamsConnector.TokenRefused e) {
            return SendResult.failed(e.getMessage(), e.transientFailure);
        } catch (IOException e) {
            return SendResult.failed("teams - sending a message: " + connector.describe(e), true);
        }
    }

    private ObjectNode textActivity(OutboundMessage m) {
        String text = m.text().isBlank() ? "…" : m.text();
        ObjectNode a = JsonHttp.JSON.createObjectNode().put("type", "message");
        if (m.kind() == MessageKind.PROMPT && m.text().contains("/approve")) {
            ObjectNode card = a.putArray("attachments").addObject().put("contentType", "application/vnd.microsoft.card.adaptive")
                    .putObject("content");
            card.put("$schema", "http://adaptivecards.io/schemas/adaptive-card.json").put("type", "AdaptiveCard").put("version", "1.4");
            card.putArray("body").addObject().put("type", "TextBlock").put("text", text).put("wrap", true);
            ArrayNode actions = card.putArray("actions");
            button(actions, "Approve", "/approve");
            button(actions, "Always", "/approve always");
            button(actions, "Deny", "/deny");
            return a;
        }
        return a.put("textFormat", "markdown").put("text", text);
    }

    private static void button(ArrayNode actions, String title, String command) {
        actions.addObject().put("type", "Action.Submit").put("title", title).putObject("data").put("herald", command);
    }

    /** An image inline as a data URL with the caption as text; any other file as a line naming it. */
    private ObjectNode fileActivity(OutboundMessage m) {
        OutboundFile f = m.file();
        String mime = f.mimeType().toLowerCase(Locale.ROOT);
        ObjectNode a = JsonHttp.JSON.createObjectNode().put("type", "message").put("textFormat", "markdown");
        if (!INLINE_IMAGES.contains(mime)) {
            log.info("teams - file {} ({}) is not an image; Teams takes other files from a bot only through the file consent card, "
                    + "so the chat gets a line naming it", f.name(), mime);
            return a.put("text", (m.text().isBlank() ? "" : m.text() + "\n\n") + "(file " + f.name() + ", " + f.size()
                    + " bytes: Teams takes only images from Herald; the file stays in the agent's workspace)");
        }
        byte[] bytes;
        try {
            bytes = f.read(MAX_FILE_BYTES);
        } catch (IOException e) {
            log.warn("teams - {}", e.getMessage());
            return null;
        }
        if (!m.text().isBlank()) {
            a.put("text", m.text());
        }
        a.putArray("attachments").addObject().put("contentType", mime).put("name", f.name())
                .put("contentUrl", "data:" + mime + ";base64," + Base64.getEncoder().encodeToString(bytes));
        return a;
    }

    /** The Connector's conversation id for {@code target}: a channel thread is {@code <channel conversation>;messageid=<root>}. */
    static String conversation(ChatTarget target) {
        return target.threadId() == null ? target.chatId() : target.chatId() + ";messageid=" + target.threadId();
    }

    /** A typing activity into the conversation of the running turn, at most every {@code typing_interval}. */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (!(event instanceof StreamEvent.Typing)) {
            return;
        }
        String conversation = conversation(target);
        Instant now = clock.instant();
        Instant last = lastTyping.get(conversation);
        if (last != null && last.plus(timing.typingInterval()).isAfter(now)) {
            return;
        }
        lastTyping.put(conversation, now);
        Optional<String> serviceUrl = serviceUrl(target.chatId());
        if (serviceUrl.isEmpty()) {
            return;
        }
        try {
            JsonHttp.Reply r = connector.post(serviceUrl.get(), conversation, null, JsonHttp.JSON.createObjectNode().put("type", "typing"));
            if (!r.ok()) {
                log.debug("teams - typing in {} not shown: HTTP {}", conversation, r.status());
            }
        } catch (IOException e) {
            log.debug("teams - typing in {} not shown: {}", conversation, connector.describe(e));
        }
    }

    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        return connector.download(ref.ref(), maxBytes);
    }

    private Optional<String> serviceUrl(String chatId) {
        String known = serviceUrls.get(chatId);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<String> stored = state.get(PLATFORM, SERVICE_URL_KEY + chatId).filter(u -> TeamsConnector.allowed(u, settings.serviceUrlHosts()));
        stored.ifPresent(u -> serviceUrls.put(chatId, u));
        return stored;
    }

    private Admission receive(TeamsActivities.Incoming in) {
        InboundSink s = sink;
        if (s == null) {
            return Admission.REJECTED_STOPPING;
        }
        String chatId = in.event().source().chatId();
        try {
            if (!in.serviceUrl().equals(serviceUrls.get(chatId))) {
                state.put(PLATFORM, Map.of(SERVICE_URL_KEY + chatId, in.serviceUrl()));
                serviceUrls.put(chatId, in.serviceUrl());
            }
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("teams - could not keep the serviceUrl of {}; answered 503 so that the Connector delivers it again", chatId, e);
            }
            return Admission.REJECTED_UNAVAILABLE;
        }
        try {
            return s.accept(in.event());
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("teams - the gateway failed to take activity {}; answered 503 so that the Connector delivers it again", in.activityId(), e);
            }
            return Admission.REJECTED_UNAVAILABLE;
        }
    }

    @Override
    public void close() {
        sink = null;
        verifier.close();
    }
}
