package dev.herald.core.platform;

import dev.herald.core.agent.TurnOptions;

/**
 * One chat platform, at the edge of Herald. An adapter normalises what its platform delivers into
 * {@link MessageEvent}s, hands them to the gateway's {@link InboundSink}, and sends what the gateway
 * asks it to. It holds no conversation state: lanes, dedupe, authorization, continuity and the outbox
 * belong to the core.
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
     * The length of {@code text} (Markdown, as the agent wrote it) once this adapter has rewritten it for its
     * platform, as the platform counts it against {@link Capabilities#maxTextLength()}. The gateway splits
     * replies so that every part fits by this measure. The default is the text's own length, for adapters
     * that send text as it is.
     */
    default int formattedLength(String text) {
        return text.length();
    }

    /**
     * Sends one message. Its text is Markdown as the agent wrote it (already split to fit); an adapter
     * rewrites it into what its platform shows. Failures come back as a {@link SendResult}, not as exceptions.
     */
    SendResult send(OutboundMessage message);

    /**
     * Where this platform's replies for {@code chat} really go, when the platform only relays them to a chat on
     * another platform (a webhook route delivering to Telegram); empty when they go to this platform itself. The
     * outbox sends such replies straight to the destination, split to its limit and tracked part by part.
     */
    default java.util.Optional<Destination> relaysRepliesTo(ChatTarget chat) {
        return java.util.Optional.empty();
    }

    /** Shows a typing indicator in the chat, best-effort. */
    default void typing(ChatTarget target) {
    }

    /**
     * Progress of the turn answering event {@code correlationId} in {@code target}, for platforms whose
     * {@link Capabilities#streaming()} is on. Best-effort; the final reply still comes through {@link #send}.
     */
    default void progress(ChatTarget target, String correlationId, StreamEvent event) {
    }

    /**
     * What the sender of event {@code correlationId} asked of its turn beyond the text (a model profile, model
     * parameters), while the adapter still holds it; {@link TurnOptions#NONE} otherwise. Only the API server has any.
     */
    default TurnOptions turnOptions(String correlationId) {
        return TurnOptions.NONE;
    }

    /** Disconnects and releases resources. Idempotent. */
    @Override
    void close();
}
