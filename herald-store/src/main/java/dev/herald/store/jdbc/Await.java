package dev.herald.store.jdbc;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Waiting for a store call that runs on another thread. */
public final class Await {
    private Await() {
    }

    /**
     * The call's result, waiting without giving up on interrupts (the caller's interrupt flag is restored
     * afterwards), so that when this returns the call has either happened or failed: never "maybe". A
     * runtime exception or error of the call is rethrown as it is; any other failure as an
     * {@link IllegalStateException} with message {@code failure}.
     */
    public static <T> T uninterruptibly(CompletableFuture<T> result, String failure) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof RuntimeException re) {
                        throw re;
                    }
                    if (cause instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(failure, cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
