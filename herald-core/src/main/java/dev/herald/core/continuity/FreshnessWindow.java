package dev.herald.core.continuity;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How long an interruption stays worth resuming. Within the window a cut-off turn is picked up again;
 * past it the old task is left alone. A window of zero or less disables the gate: everything is fresh
 * (spec C6, G4).
 */
public record FreshnessWindow(Duration length) {
    public static final Duration DEFAULT = Duration.ofHours(1);
    public static final String ENV = "HERALD_AUTO_CONTINUE_FRESHNESS";
    public static final String LEGACY_ENV = "HERMES_AUTO_CONTINUE_FRESHNESS";

    public FreshnessWindow {
        Objects.requireNonNull(length, "length");
    }

    public static FreshnessWindow ofSeconds(double seconds) {
        return new FreshnessWindow(Duration.ofMillis(Math.round(seconds * 1000)));
    }

    public static FreshnessWindow defaults() {
        return new FreshnessWindow(DEFAULT);
    }

    /**
     * The window from the environment ({@value #ENV}, else {@value #LEGACY_ENV}, in seconds), else
     * {@code configured}. A malformed value is ignored in favour of {@code configured}.
     */
    public static FreshnessWindow fromEnvironment(Map<String, String> env, FreshnessWindow configured) {
        return EnvSeconds.read(env, ENV, LEGACY_ENV).map(FreshnessWindow::ofSeconds).orElse(configured);
    }

    public boolean disabled() {
        return length.isZero() || length.isNegative();
    }

    /** Fresh means age at most the window; the boundary is fresh; an unknown time is fresh (C7). */
    public boolean isFresh(Instant at, Instant now) {
        if (disabled() || at == null) {
            return true;
        }
        return Duration.between(at, now).compareTo(length) <= 0;
    }

    public boolean isFresh(Optional<Instant> at, Instant now) {
        return isFresh(at.orElse(null), now);
    }

    public long seconds() {
        return length.toSeconds();
    }
}
