package dev.herald.core.config;

import java.util.Objects;
import java.util.Optional;

/**
 * A configuration value that must never be shown: an API key, a bearer key, a bot token. Its
 * {@code toString()} and its JSON form are {@code ****} (or {@code (not set)} / null), so a record that
 * holds one can be logged, printed or put in an exception message without leaking it. Only
 * {@link #reveal()} gives the value, and only the code that sends it on the wire should call it. The configuration
 * loader reads one from text with {@link #of} and writes it as {@link #masked()}.
 */
public final class Secret {
    /** No value: the key was absent, empty, or named an environment variable that is not set. */
    public static final Secret NONE = new Secret(null);

    private static final String MASK = "****";

    private final String value;

    private Secret(String value) {
        this.value = value;
    }

    /** The secret {@code value}; {@link #NONE} when it is null or blank. */
    public static Secret of(String value) {
        return value == null || value.isBlank() ? NONE : new Secret(value.strip());
    }

    public boolean isSet() {
        return value != null;
    }

    /** The value itself, for the one place that sends it; empty when not set. */
    public Optional<String> reveal() {
        return Optional.ofNullable(value);
    }

    /** What the JSON/YAML form and the effective-configuration printout show: {@code ****}, or null when not set. */
    public String masked() {
        return isSet() ? MASK : null;
    }

    @Override
    public String toString() {
        return isSet() ? MASK : "(not set)";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Secret other && Objects.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(value);
    }
}
