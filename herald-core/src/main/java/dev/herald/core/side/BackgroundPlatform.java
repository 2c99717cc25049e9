package dev.herald.core.side;

import dev.herald.core.platform.BackgroundChats;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The internal platform {@code background}, where background tasks ({@code /bg}) run: each task is one of its chats, a
 * session of its own ({@link BackgroundChats}). Nobody reads it: every message of its chats goes to the chat that asked
 * for the task (the outbox sends it there), so it is not interactive (a tool that needs an approval follows
 * {@code agent.non_interactive_approvals}) and a task cut off by a restart continues on its own. Only the gateway writes
 * to it; register it as a trusted platform.
 */
public final class BackgroundPlatform implements PlatformAdapter {
    private static final Logger log = LoggerFactory.getLogger(BackgroundPlatform.class);
    private static final Capabilities CAPABILITIES = new Capabilities(false, false, false, false, false, 1_000_000);

    private volatile InboundSink sink;

    @Override
    public Platform platform() {
        return BackgroundChats.PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void start(InboundSink inbound) {
        this.sink = inbound;
        inbound.connectionChanged(BackgroundChats.PLATFORM, ConnectionState.CONNECTED, "background tasks");
    }

    /** Reached only for a chat whose asking chat cannot be read from its id (never made by Herald): logged, dropped. */
    @Override
    public SendResult send(OutboundMessage m) {
        log.warn("background - a message for chat {} was dropped: that chat names no chat to send it to", m.target().chatId());
        return SendResult.failed("background - chat " + m.target().chatId() + " names no chat to send to", false);
    }

    @Override
    public void close() {
        InboundSink s = sink;
        sink = null;
        if (s != null) {
            s.connectionChanged(BackgroundChats.PLATFORM, ConnectionState.STOPPED, "closed");
        }
    }
}
