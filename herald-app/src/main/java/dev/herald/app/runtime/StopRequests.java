package dev.herald.app.runtime;

import dev.herald.core.gateway.StopKind;
import java.util.concurrent.CompletableFuture;

/**
 * The first request to stop wins: a signal, {@code herald restart}, or /restart (until {@link #reset}). A later signal (an operator's
 * second Ctrl-C) asks to hurry the stop under way: {@link #hurry()} runs what {@link #onHurry} registered.
 */
public final class StopRequests {
    /** One request: what kind of stop, and whether a chat asked for it (/restart). */
    public record Request(StopKind kind, boolean fromChat) {
    }

    private volatile CompletableFuture<Request> first = new CompletableFuture<>();
    private volatile Runnable hurry = () -> {
    };

    public void request(StopKind kind, boolean fromChat) {
        first.complete(new Request(kind, fromChat));
    }

    /** What a second stop request does (the gateway's hurried drain). */
    public void onHurry(Runnable action) {
        this.hurry = java.util.Objects.requireNonNull(action, "action");
    }

    /** A stop request after the first: hurries the stop under way; before any request it does nothing. */
    public void hurry() {
        if (first.isDone()) {
            hurry.run();
        }
    }

    public Request await() {
        return first.join();
    }

    /** Takes requests again (a restart that did not happen: the gateway keeps running). */
    public void reset() {
        first = new CompletableFuture<>();
    }
}
