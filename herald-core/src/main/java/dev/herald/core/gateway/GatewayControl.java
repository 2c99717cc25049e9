package dev.herald.core.gateway;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;

/** What slash commands may ask of the gateway beyond sessions and lanes. */
interface GatewayControl {

    GatewayStatus status();

    /** Starts a graceful restart on another thread; the requesting chat gets a confirmation once back. */
    void requestRestart(SessionSource requester);

    /** Stores and dispatches a message that must wait its turn and never interrupts (/queue). */
    Admission enqueue(MessageEvent event);
}
