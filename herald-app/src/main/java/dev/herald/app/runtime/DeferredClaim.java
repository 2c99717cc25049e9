package dev.herald.app.runtime;

import dev.herald.store.StoreOwner;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store claim of a process that takes over from another in a restart (handover): the old process holds the claim
 * until it exits, so this one takes it as soon as it can, trying every {@link #RETRY}. Until then the old process's
 * claim keeps every third gateway out, and the node registry keeps the two apart.
 */
final class DeferredClaim implements StoreOwner {
    private static final Logger log = LoggerFactory.getLogger("runtime");
    static final Duration RETRY = Duration.ofMillis(100);

    private final String what;
    private final AtomicReference<StoreOwner> held = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread taker;

    DeferredClaim(String what, Supplier<StoreOwner> claim) {
        this.what = what;
        this.taker = Thread.ofVirtual().name("herald-store-claim").start(() -> {
            while (!closed.get()) {
                try {
                    held.set(claim.get());
                    log.info("store - {} claimed now that the process this one took over from has left", what);
                    if (closed.get()) {
                        held.get().close();
                    }
                    return;
                } catch (RuntimeException e) {
                    try {
                        Thread.sleep(RETRY);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        });
    }

    @Override
    public String describe() {
        StoreOwner owner = held.get();
        return owner != null ? owner.describe() : what + " (taken over: claimed once the previous process has left)";
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            taker.interrupt();
            StoreOwner owner = held.get();
            if (owner != null) {
                owner.close();
            }
        }
    }
}
