package dev.herald.testkit.gateway;

import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The adapter under test, unchanged, with a witness: every message its platform accepted (a successful send) is
 * reported to the harness, so the invariant checks see what reached each chat, across simulated restarts. Every
 * method of {@link PlatformAdapter} is passed on, defaults included ({@code RecordingAdapterTest} fails when one is
 * not).
 */
public final class RecordingAdapter implements PlatformAdapter {

    /**
     * One message a platform accepted.
     *
     * @param platform  where it went
     * @param message   what the gateway asked to send
     * @param messageId the platform's id of the message, or null when it gives none
     * @param process   the simulated process that sent it (0 for the first)
     */
    public record Sent(Platform platform, OutboundMessage message, String messageId, int process) {
        public Sent {
            Objects.requireNonNull(platform, "platform");
            Objects.requireNonNull(message, "message");
        }
    }

    private final PlatformAdapter delegate;
    private final int process;
    private final Consumer<Sent> witness;

    RecordingAdapter(PlatformAdapter delegate, int process, Consumer<Sent> witness) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.process = process;
        this.witness = witness;
    }

    /** The real adapter. */
    public PlatformAdapter delegate() {
        return delegate;
    }

    @Override
    public Platform platform() {
        return delegate.platform();
    }

    @Override
    public Capabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public void start(InboundSink sink) throws Exception {
        delegate.start(sink);
    }

    @Override
    public SendResult send(OutboundMessage message) {
        SendResult r = delegate.send(message);
        if (r != null && r.success()) {
            witness.accept(new Sent(delegate.platform(), message, r.messageId(), process));
        }
        return r;
    }

    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        delegate.progress(target, correlationId, event);
    }

    @Override
    public void stopReceiving() {
        delegate.stopReceiving();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
