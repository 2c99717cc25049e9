package dev.herald.core.continuity;

import java.util.Map;
import java.util.Optional;

/** Reads a number of seconds from the first set environment variable among Herald's and its legacy name. */
final class EnvSeconds {
    private EnvSeconds() {
    }

    static Optional<Double> read(Map<String, String> env, String... names) {
        for (String name : names) {
            String raw = env.get(name);
            if (raw == null || raw.isBlank()) {
                continue;
            }
            try {
                double v = Double.parseDouble(raw.strip());
                if (!Double.isNaN(v) && !Double.isInfinite(v)) {
                    return Optional.of(v);
                }
            } catch (NumberFormatException malformed) {
                // a malformed override is ignored; the configured value stands
            }
            return Optional.empty();
        }
        return Optional.empty();
    }
}
