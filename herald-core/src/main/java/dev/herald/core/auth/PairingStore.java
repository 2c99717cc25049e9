package dev.herald.core.auth;

import dev.herald.core.platform.Platform;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Where DM pairing keeps its state, one {@link PairingState} per platform. The gateway issues codes
 * while an operator approves them from another process, so {@link #update} must be atomic against
 * other writers, in this process and others.
 */
public interface PairingStore {

    /** The platform's current state; {@link PairingState#empty()} when nothing was stored. */
    PairingState read(Platform platform);

    /** Reads, applies {@code change}, and stores the result as one atomic step; returns what was stored. */
    PairingState update(Platform platform, UnaryOperator<PairingState> change);

    /** Keeps state in memory only (tests; a gateway without a home folder). */
    static PairingStore inMemory() {
        Map<Platform, PairingState> states = new ConcurrentHashMap<>();
        return new PairingStore() {
            @Override
            public PairingState read(Platform platform) {
                return states.getOrDefault(platform, PairingState.empty());
            }

            @Override
            public PairingState update(Platform platform, UnaryOperator<PairingState> change) {
                return states.compute(platform, (p, s) -> change.apply(s == null ? PairingState.empty() : s));
            }
        };
    }
}
