package dev.herald.platforms.homeassistant;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformTool;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.TextFormat;
import dev.herald.platforms.common.FirstAttempt;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Home Assistant ({@code homeassistant}): one WebSocket connection ({@link HomeAssistantSocket}) that the agent's tools
 * ({@link HomeAssistantTools}) use, and a way out for Herald's messages (a home channel, a scheduled job's answer): a
 * chat id here is the service that shows them, {@code persistent_notification.create} (the notification bell) or
 * {@code notify.<service>} (a phone's companion app). Home Assistant sends no chat messages to this adapter: its
 * assistant reaches Herald through the OpenAI-compatible API server. Every node connects
 * ({@link Capabilities.Delivery#ANY_NODE}): a tool call runs where its turn runs.
 */
public final class HomeAssistantAdapter implements PlatformAdapter {
    private static final Logger log = LoggerFactory.getLogger(HomeAssistantAdapter.class);

    public static final Platform PLATFORM = Platform.of("homeassistant");
    /** The notification services a chat id may name. */
    static final Pattern NOTIFY_TARGET = Pattern.compile("persistent_notification\\.create|notify\\.(?!.*__)(?!_)[a-z0-9_]{1,64}(?<!_)");
    static final int MAX_TEXT_LENGTH = 4_000;

    private final HomeAssistantSettings settings;
    private final HomeAssistantSettings.Timing timing;
    private final HomeAssistantSocket socket;
    private final HomeAssistantTools tools;
    private final FirstAttempt firstAttempt = new FirstAttempt();
    private final Capabilities capabilities = new Capabilities(false, false, false, false, false, false, false, false, MAX_TEXT_LENGTH,
            TextFormat.MARKDOWN, Capabilities.Delivery.ANY_NODE);
    private volatile InboundSink sink;
    private volatile boolean closing;

    HomeAssistantAdapter(HomeAssistantSettings settings, HomeAssistantSettings.Timing timing) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.socket = new HomeAssistantSocket(settings.websocketUri(), settings.token().reveal().orElse(""), timing, this::stateChanged);
        this.tools = new HomeAssistantTools(socket, settings.allowDomains(), settings.maxStates());
    }

    /** The tools the plug-in offers the agent. */
    List<PlatformTool> tools() {
        return tools.tools();
    }

    private void stateChanged(ConnectionState state, String detail) {
        if (state == ConnectionState.STOPPED && !closing && !detail.isEmpty()) {
            firstAttempt.gaveUp("homeassistant - " + detail);
        } else {
            firstAttempt.reported(state);
        }
        InboundSink s = sink;
        if (s != null) {
            s.connectionChanged(PLATFORM, state, detail);
        }
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /** Connects; returns once the first attempt is over, and fails naming the key when the token was refused. */
    @Override
    public void start(InboundSink inboundSink) throws Exception {
        sink = Objects.requireNonNull(inboundSink, "sink");
        log.info("homeassistant - connecting to {} (service calls without approval: {})", settings.websocketUri().getHost(),
                settings.allowDomains().isEmpty() ? "none" : String.join(", ", settings.allowDomains()));
        socket.start();
        if (!firstAttempt.await(timing.firstConnectWait(), socket::close)) {
            log.warn("homeassistant - still connecting after {} ms; the tools answer that Home Assistant is not connected until it is",
                    timing.firstConnectWait().toMillis());
        }
    }

    /** Shows {@code message} with the service its chat id names. */
    @Override
    public SendResult send(OutboundMessage message) {
        String target = message.target().chatId();
        if (!NOTIFY_TARGET.matcher(target).matches()) {
            return SendResult.failed("homeassistant - chat id \"" + HomeAssistantIds.clip(target) + "\" is not persistent_notification.create"
                    + " or notify.<service>", false);
        }
        int dot = target.indexOf('.');
        ObjectNode command = HomeAssistantSocket.JSON.createObjectNode().put("type", "call_service").put("domain", target.substring(0, dot))
                .put("service", target.substring(dot + 1));
        command.putObject("service_data").put("title", "Herald").put("message", message.text());
        try {
            socket.command(command);
            return SendResult.sent(message.idempotencyKey() == null ? "" : message.idempotencyKey());
        } catch (HomeAssistantSocket.CommandException e) {
            boolean retry = "not_connected".equals(e.code) || "timeout".equals(e.code);
            return SendResult.failed("homeassistant - " + target + " failed (" + e.code + "): " + e.getMessage(), retry);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SendResult.failed("homeassistant - interrupted while sending", true);
        }
    }

    @Override
    public void close() {
        closing = true;
        socket.close();
    }
}
