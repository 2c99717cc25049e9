package dev.herald.core.schedule;

import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The internal platform {@code schedule}: the chat of jobs whose answer goes to the log ({@code deliver: log}).
 * Its chat id is the job's id. Nobody reads it in real time, so it is not interactive: a tool that needs an
 * approval follows {@code agent.non_interactive_approvals}, and a resumed turn continues on its own. What it is
 * asked to send is logged with the first {@value #PREVIEW} characters, like a webhook's log delivery.
 */
public final class SchedulePlatform implements PlatformAdapter {
    private static final Logger log = LoggerFactory.getLogger("schedule");
    public static final Platform PLATFORM = Platform.of("schedule");
    static final int PREVIEW = 200;
    private static final Capabilities CAPABILITIES = new Capabilities(false, false, false, false, false, 1_000_000);

    private volatile InboundSink sink;

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
        this.sink = inbound;
        inbound.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "log delivery of scheduled jobs");
    }

    @Override
    public SendResult send(OutboundMessage m) {
        String oneLine = m.text().replace('\n', ' ');
        String preview = oneLine.length() <= PREVIEW ? oneLine : oneLine.substring(0, PREVIEW) + "...";
        String what = m.kind() == MessageKind.REPLY ? "reply" : m.kind().name().toLowerCase(Locale.ROOT);
        log.info("schedule - job {} {} ({} chars): {}", m.target().chatId(), what, m.text().length(), preview);
        return SendResult.sent(null);
    }

    @Override
    public void close() {
        InboundSink s = sink;
        sink = null;
        if (s != null) {
            s.connectionChanged(PLATFORM, ConnectionState.STOPPED, "closed");
        }
    }
}
