package dev.herald.platforms.googlechat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.JwksVerifier;
import java.io.IOException;
import java.time.Clock;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Google Chat as an HTTP endpoint app ({@code google_chat}): events arrive on Herald's route
 * ({@link GoogleChatWebhook}, read by {@link GoogleChatEvents}) and are acknowledged at once with an empty answer;
 * replies go out asynchronously through the Chat API ({@link ChatApi}) as the app. A direct message is one session; in
 * a space each thread is a session and the answer goes into that thread. The space and thread ids are the chat and
 * thread ids ({@code spaces/<chat>/threads/<thread>}), so a reply needs nothing kept but what the session holds.
 *
 * <p>An approval question goes out as a card (cards v2) with three buttons that invoke {@code herald_approval} with
 * the command as a parameter; a press arrives as a {@code CARD_CLICKED} event and is that command. Files from the agent
 * are not sent: the Chat API takes uploads only with a user's credentials, not an app's, so the chat gets a line
 * naming the file. Google Chat has no typing indicator for apps.
 *
 * <p>Sends carry a {@code requestId} made from the part's idempotency key: a send repeated after a crash returns the
 * message already created, so replies are delivered exactly once.
 */
public final class GoogleChatAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(GoogleChatAdapter.class);

    public static final Platform PLATFORM = Platform.of("google_chat");
    /** A message's text holds at most 4,096 characters. */
    public static final int MAX_TEXT = 4096;
    private static final Capabilities CAPABILITIES = new Capabilities(true, false, false, true, false, true, false, false, MAX_TEXT,
            new TextFormat("google_chat", text -> GoogleChatText.render(text).length()), Capabilities.Delivery.ANY_NODE);

    private final GoogleChatSettings settings;
    private final ChatApi api;
    private final JwksVerifier verifier;
    private final GoogleChatWebhook webhook;
    private volatile InboundSink sink;

    public GoogleChatAdapter(GoogleChatSettings settings, GoogleChatSettings.Timing timing, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(timing, "timing");
        this.api = new ChatApi(settings, timing, clock);
        Set<String> issuers = settings.endpointAudience() ? Set.of("https://accounts.google.com", "accounts.google.com")
                : Set.of(GoogleChatSettings.CHAT_ISSUER);
        JwksVerifier.Config keys = JwksVerifier.Config.of("google_chat", settings.keysUri(), false, issuers, settings.audience())
                .withRefreshInterval(timing.keyRefresh());
        this.verifier = new JwksVerifier(keys, clock);
        this.webhook = new GoogleChatWebhook(settings, verifier, new GoogleChatEvents(PLATFORM, settings.requireMention(), settings.appUser()),
                clock, this::receive);
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

    /** Gets the app's token once: a refused service account stops the start naming the key; an unreachable endpoint is logged. */
    @Override
    public void start(InboundSink inboundSink) {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "getting the app's token");
        try {
            api.token();
            log.info("google_chat - posting as {} (token from {})", api.account().clientEmail(), settings.tokenUrl());
        } catch (ChatApi.TokenRefused e) {
            if (!e.transientFailure) {
                inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "service account refused");
                throw new IllegalStateException(e.getMessage());
            }
            log.warn("{} (serving the route anyway; sends are retried)", e.getMessage());
        } catch (IOException e) {
            log.warn("google_chat - the token endpoint is not reachable now ({}); serving the route, sends are retried", api.describe(e));
        }
        sink = inboundSink;
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "events at " + InboundHttp.pathOf(PLATFORM, "events"));
    }

    @Override
    public SendResult send(OutboundMessage m) {
        String space = GoogleChatEvents.clean(m.target().chatId());
        if (space == null) {
            return SendResult.failed("google_chat - " + m.target().chatId() + " is not a space id (the part after spaces/)", false);
        }
        String threadId = m.target().threadId() == null ? null : GoogleChatEvents.clean(m.target().threadId());
        String thread = threadId == null ? null : "spaces/" + space + "/threads/" + threadId;
        try {
            var r = api.createMessage(space, thread, body(m), m.idempotencyKey());
            if (r.ok()) {
                String name = r.body().path("name").asText("");
                return SendResult.sent(name.isEmpty() ? null : name);
            }
            return api.failure("sending a message", r);
        } catch (ChatApi.TokenRefused e) {
            return SendResult.failed(e.getMessage(), e.transientFailure);
        } catch (IOException e) {
            return SendResult.failed("google_chat - sending a message: " + api.describe(e), true);
        }
    }

    private static ObjectNode body(OutboundMessage m) {
        String text = GoogleChatText.render(m.text());
        if (text.isBlank()) {
            text = m.text().isBlank() ? "…" : m.text();
        }
        ObjectNode b = JsonHttp.JSON.createObjectNode();
        if (m.kind() == MessageKind.PROMPT && m.text().contains("/approve")) {
            ObjectNode card = b.putArray("cardsV2").addObject().put("cardId", "herald-approval").putObject("card");
            ArrayNode widgets = card.putArray("sections").addObject().putArray("widgets");
            widgets.addObject().putObject("textParagraph").put("text", text);
            ArrayNode buttons = widgets.addObject().putObject("buttonList").putArray("buttons");
            button(buttons, "Approve", "/approve");
            button(buttons, "Always", "/approve always");
            button(buttons, "Deny", "/deny");
            return b.put("fallbackText", text);
        }
        return b.put("text", text);
    }

    private static void button(ArrayNode buttons, String label, String command) {
        ObjectNode action = buttons.addObject().put("text", label).putObject("onClick").putObject("action")
                .put("function", GoogleChatEvents.APPROVAL_FUNCTION);
        action.putArray("parameters").addObject().put("key", "command").put("value", command);
    }

    /** An attachment's bytes through the Chat API's media download, from {@code api_base} only. */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        return api.download(ref.ref(), maxBytes);
    }

    private Admission receive(GoogleChatEvents.Incoming in) {
        InboundSink s = sink;
        if (s == null) {
            return Admission.REJECTED_STOPPING;
        }
        try {
            return s.accept(in.event());
        } catch (RuntimeException e) {
            if (!StoreException.isOutage(e)) {
                log.warn("google_chat - the gateway failed to take event {}; answered 503 so that Google Chat tries again", in.event().messageId(), e);
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
