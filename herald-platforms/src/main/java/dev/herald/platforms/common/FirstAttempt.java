package dev.herald.platforms.common;

import dev.herald.core.platform.ConnectionState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What an adapter's {@code start} waits for: the end of its connection loop's first attempt. Any reported
 * state but {@code CONNECTING} ends it (connected, or backing off to try again); the loop giving up for good
 * (a rejected token) makes {@code start} fail with the loop's message.
 */
public final class FirstAttempt {
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    /** Notes a reported connection state. */
    public void reported(ConnectionState state) {
        if (state != ConnectionState.CONNECTING) {
            ended.complete(null);
        }
    }

    /** The loop gave up for good; {@code message} is for the operator. */
    public void gaveUp(String message) {
        ended.completeExceptionally(new IllegalStateException(message));
    }

    /**
     * Waits at most {@code timeout} for the first attempt to end; false when it has not. When the loop gave
     * up, runs {@code cleanUp} and throws an {@link IllegalStateException} carrying only the loop's message.
     */
    public boolean await(Duration timeout, Runnable cleanUp) throws InterruptedException {
        try {
            ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            cleanUp.run();
            throw new IllegalStateException(e.getCause().getMessage(), null);
        } catch (TimeoutException e) {
            return false;
        }
    }
}
