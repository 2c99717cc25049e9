package dev.herald.core.platform;

/**
 * One chat platform, at the edge of Herald. An adapter normalises what its platform delivers into
 * {@link MessageEvent}s, hands them to the gateway's {@link InboundSink}, and sends what the gateway
 * asks it to. It holds no conversation state: lanes, dedupe, authorization, continuity and the outbox
 * belong to the core.
 *
 * <p>The contract is five methods and data: who it is, what it can do ({@link Capabilities}: text length and
 * dialect, typing, edits, threads, streaming, which node receives and runs its turns), start, send, close. What a
 * message asks of its turn travels on the {@link MessageEvent}; the core never calls back into the adapter mid-turn
 * to ask. Two optional methods remain, each for what cannot be a reply or a start: {@link #progress} (a running turn's
 * typing indicator and streamed text, best-effort, never through the outbox) and {@link #stopReceiving} (a draining
 * node handing a single connection to another node while its own replies still go out).
 */
public interface PlatformAdapter extends AutoCloseable {

    /** The platform's identity. */
    Platform platform();

    /** What the platform can do. */
    Capabilities capabilities();

    /**
     * Connects and begins delivering inbound events to {@code sink}, reporting connection changes to it.
     * Returns once the first connection attempt has finished; a bad credential fails here with an
     * exception whose message names the platform and the problem (never the secret).
     */
    void start(InboundSink sink) throws Exception;

    /**
     * Sends one message. Its text is Markdown as the agent wrote it (already split to fit, measured by
     * {@link Capabilities#format()}); an adapter rewrites it into what its platform shows. Failures come back as a
     * {@link SendResult}, not as exceptions.
     */
    SendResult send(OutboundMessage message);

    /**
     * Progress of the turn answering event {@code correlationId} in {@code target}: {@link StreamEvent.Typing} every few
     * seconds while it runs when {@link Capabilities#typing()} is on, and its text and tool activity as they come.
     * Best-effort; the final reply still comes through {@link #send}. Default: nothing shown.
     */
    default void progress(ChatTarget target, String correlationId, StreamEvent event) {
    }

    /**
     * Stops taking inbound messages (closes the single connection, {@link Capabilities.Delivery#singleConnection()})
     * but keeps sending: a draining node gives the connection up to another node while its own turns still deliver.
     * Default: nothing to stop.
     */
    default void stopReceiving() {
    }

    /** Disconnects and releases resources. Idempotent. */
    @Override
    void close();
}
