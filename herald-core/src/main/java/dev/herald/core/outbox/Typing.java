package dev.herald.core.outbox;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.StreamEvent;
import java.time.Duration;

/** Keeps a platform's typing indicator on while a turn runs, refreshing it every few seconds ({@link StreamEvent.Typing}). */
public final class Typing implements AutoCloseable {
    private static final Duration REFRESH = Duration.ofSeconds(4);
    private static final Typing NONE = new Typing(null);

    private final Thread thread;

    private Typing(Thread thread) {
        this.thread = thread;
    }

    public static Typing start(PlatformAdapter adapter, ChatTarget target, String correlationId) {
        if (!adapter.capabilities().typing()) {
            return NONE;
        }
        Thread t = Thread.ofVirtual().name("typing-" + adapter.platform()).start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    adapter.progress(target, correlationId, StreamEvent.Typing.NOW);
                } catch (RuntimeException e) {
                    // best-effort: a failed indicator never affects the turn
                }
                try {
                    Thread.sleep(REFRESH);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return new Typing(t);
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}
