package dev.herald.core.inbound;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;

/** What slash commands may ask of the gateway beyond sessions and lanes. */
public interface GatewayControl {

    GatewayStatus status();

    /** Starts a graceful restart on another thread; the requesting chat gets a confirmation once back. */
    void requestRestart(SessionSource requester);

    /** Makes the source's chat (and thread) its platform's home channel, durably (/sethome). */
    void setHome(SessionSource source);

    /** Stores and dispatches a message that must wait its turn and never interrupts (/queue). */
    Admission enqueue(MessageEvent event);

    /**
     * Runs {@code work} on a virtual thread while holding the session's lane (like a turn, but not
     * stored as one); false, and nothing runs, when the lane is taken.
     */
    boolean runInLane(dev.herald.core.session.SessionKey key, Runnable work);
}
