package dev.herald.core.platform;

/** Where an adapter hands what it receives: the gateway. */
public interface InboundSink {

    /**
     * Hands over one inbound event. Returns once the event is durably stored (or refused, or answered);
     * the adapter acknowledges the message to its platform only after this returns, and not when it returns a rejection
     * ({@link Admission#REJECTED_STOPPING}, {@link Admission#REJECTED_UNAVAILABLE}) or throws.
     */
    Admission accept(MessageEvent event);

    /** Reports a change of the adapter's connection; connecting triggers auto-resume for the platform (spec F3). */
    void connectionChanged(Platform platform, ConnectionState state, String detail);
}
