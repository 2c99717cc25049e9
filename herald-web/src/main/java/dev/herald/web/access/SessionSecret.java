package dev.herald.web.access;

import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformState;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * The secret that signs account sessions: 32 random bytes kept in the store ({@code platform_state}, platform
 * {@code web}), so every node of a cluster and every restart accepts the same sessions and {@code herald store copy}
 * takes them along. Made on first use; two nodes making it at once settle on the one stored last (sessions signed
 * with the other in that moment end).
 */
public final class SessionSecret {
    static final Platform PLATFORM = Platform.of("web");
    static final String NAME = "account_session_secret";

    private SessionSecret() {
    }

    /** The stored secret, made now when there is none. */
    public static byte[] of(PlatformState state) {
        Optional<byte[]> stored = read(state);
        if (stored.isPresent()) {
            return stored.get();
        }
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        state.put(PLATFORM, Map.of(NAME, Base64.getEncoder().encodeToString(secret)));
        return read(state).orElse(secret);
    }

    private static Optional<byte[]> read(PlatformState state) {
        return state.get(PLATFORM, NAME).map(v -> {
            try {
                return Base64.getDecoder().decode(v);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }).filter(b -> b.length >= 32);
    }
}
