package dev.herald.app.runtime;

import dev.herald.core.gateway.StopKind;
import java.util.concurrent.CompletableFuture;

/** The first request to stop wins: a signal, {@code herald restart}, or /restart (until {@link #reset}). */
public final class StopRequests {
    /** One request: what kind of stop, and whether a chat asked for it (/restart). */
    public record Request(StopKind kind, boolean fromChat) {
    }

    private volatile CompletableFuture<Request> first = new CompletableFuture<>();

    public void request(StopKind kind, boolean fromChat) {
        first.complete(new Request(kind, fromChat));
    }

    public Request await() {
        return first.join();
    }

    /** Takes requests again (a restart that did not happen: the gateway keeps running). */
    public void reset() {
        first = new CompletableFuture<>();
    }
}
