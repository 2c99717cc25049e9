package dev.herald.core.platform;

/** Where an adapter hands what it receives: the gateway. */
public interface InboundSink {

    /**
     * Hands over one inbound event. Returns once the event is durably stored (or refused, or answered);
     * the adapter acknowledges the message to its platform only after this returns, and not when it returns a rejection
     * ({@link Admission#REJECTED_STOPPING}, {@link Admission#REJECTED_UNAVAILABLE}) or throws.
     */
    Admission accept(MessageEvent event);

    /**
     * What became of the message {@code messageId} that {@code platform} handed in before (one {@link #accept} answered
     * {@link Admission#DUPLICATE}); empty when no such message is stored. A client's retry waits on this for the answer
     * of its first attempt.
     */
    default java.util.Optional<PriorMessage> prior(Platform platform, String messageId) {
        return java.util.Optional.empty();
    }

    /**
     * File {@code index} (0-based) of the reply of turn {@code turnId} ({@link OutboundFile#replyRef}), when that turn came
     * from {@code platform}; empty otherwise. A platform that gives its users links to the files an answer sends (the API)
     * serves them from this.
     */
    default java.util.Optional<OutboundFile> sentFile(Platform platform, long turnId, int index) {
        return java.util.Optional.empty();
    }

    /** Reports a change of the adapter's connection; connecting triggers auto-resume for the platform (spec F3). */
    void connectionChanged(Platform platform, ConnectionState state, String detail);
}
