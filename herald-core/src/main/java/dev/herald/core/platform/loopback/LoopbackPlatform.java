package dev.herald.core.platform.loopback;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.session.SessionSource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A platform that lives inside the process: messages are handed in by calling {@link #say}, and what
 * the gateway sends is kept in memory. It needs no network, so it serves local experiments and tests
 * of the whole gateway (any platform id can be given, to stand in for a real platform's identity).
 */
public final class LoopbackPlatform implements PlatformAdapter {

    /** What was sent, in order, with the thread it was sent to. */
    public record Sent(long id, OutboundMessage message) {
        public String text() {
            return message.text();
        }

        public ChatTarget target() {
            return message.target();
        }
    }

    private final Platform platform;
    private final Capabilities capabilities;
    private final Clock clock;
    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final List<StreamEvent> progress = new CopyOnWriteArrayList<>();
    private final List<OutboundMessage> failed = new CopyOnWriteArrayList<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile Function<OutboundMessage, SendResult> sendBehaviour;
    private volatile InboundSink sink;
    private volatile boolean connectOnStart = true;

    public LoopbackPlatform(Platform platform, Capabilities capabilities, Clock clock) {
        this.platform = Objects.requireNonNull(platform, "platform");
        this.capabilities = Objects.requireNonNull(capabilities, "capabilities");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sendBehaviour = m -> SendResult.sent(Long.toString(ids.incrementAndGet()));
    }

    /** An interactive loopback platform named {@code loopback}. */
    public static LoopbackPlatform create(Clock clock) {
        return new LoopbackPlatform(Platform.of("loopback"), Capabilities.basicChat(), clock);
    }

    @Override
    public Platform platform() {
        return platform;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public void start(InboundSink sink) {
        this.sink = sink;
        if (connectOnStart) {
            sink.connectionChanged(platform, ConnectionState.CONNECTED, "loopback");
        }
    }

    /** Makes {@link #start} leave the platform unconnected until {@link #reconnect()} (to stage a late connection). */
    public LoopbackPlatform startDisconnected() {
        this.connectOnStart = false;
        return this;
    }

    /** Reports a lost connection. */
    public void disconnect() {
        requireStarted().connectionChanged(platform, ConnectionState.BACKING_OFF, "loopback disconnected");
    }

    /** Reports a (re)established connection; the gateway resumes this platform's interrupted sessions. */
    public void reconnect() {
        requireStarted().connectionChanged(platform, ConnectionState.CONNECTED, "loopback reconnected");
    }

    /** Hands a message from {@code source} to the gateway, as if its user had written it. */
    public Admission say(SessionSource source, String text) {
        return say(source, text, null);
    }

    /** Like {@link #say(SessionSource, String)} with a platform message id (repeated ids are dropped by the gateway). */
    public Admission say(SessionSource source, String text, String messageId) {
        if (!source.platform().equals(platform)) {
            throw new IllegalArgumentException("source is on " + source.platform() + ", this loopback platform is " + platform);
        }
        return requireStarted().accept(MessageEvent.text(source, text, messageId, clock.instant()));
    }

    /** Replaces what {@link #send} does (for example to fail, or to block). */
    public void onSend(Function<OutboundMessage, SendResult> behaviour) {
        this.sendBehaviour = Objects.requireNonNull(behaviour);
    }

    @Override
    public SendResult send(OutboundMessage message) {
        SendResult r = sendBehaviour.apply(message);
        if (r.success()) {
            sent.add(new Sent(sent.size() + 1L, message));
        } else {
            failed.add(message);
        }
        return r;
    }

    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        progress.add(event);
    }

    /** Every message sent successfully, in order. */
    public List<Sent> sent() {
        return List.copyOf(sent);
    }

    /** Every send attempt that failed, in order. */
    public List<OutboundMessage> failedSends() {
        return List.copyOf(failed);
    }

    public List<StreamEvent> progressEvents() {
        return List.copyOf(progress);
    }

    /** Sent messages whose text matches. */
    public List<Sent> sentMatching(Predicate<String> text) {
        List<Sent> out = new ArrayList<>();
        for (Sent s : sent) {
            if (text.test(s.text())) {
                out.add(s);
            }
        }
        return out;
    }

    /** Waits until a sent message matches, or fails after {@code max} naming what was sent instead. */
    public Sent awaitSent(Predicate<String> text, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            for (Sent s : sent) {
                if (text.test(s.text())) {
                    return s;
                }
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new AssertionError("loopback " + platform + " - no matching message sent within " + max.toMillis() + " ms; sent: "
                + sent.stream().map(Sent::text).toList());
    }

    @Override
    public void close() {
        InboundSink s = sink;
        if (s != null) {
            sink = null;
        }
    }

    private InboundSink requireStarted() {
        InboundSink s = sink;
        if (s == null) {
            throw new IllegalStateException("loopback " + platform + " - not started (or closed)");
        }
        return s;
    }
}
