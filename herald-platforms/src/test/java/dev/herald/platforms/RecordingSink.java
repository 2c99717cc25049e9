package dev.herald.platforms;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A sink for starting an adapter without a gateway: records connection changes; takes no messages. */
public final class RecordingSink implements InboundSink {
    public final List<ConnectionState> states = new CopyOnWriteArrayList<>();
    public final List<String> details = new CopyOnWriteArrayList<>();

    @Override
    public Admission accept(MessageEvent event) {
        return Admission.REFUSED;
    }

    @Override
    public void connectionChanged(Platform platform, ConnectionState state, String detail) {
        states.add(state);
        details.add(detail);
    }
}
