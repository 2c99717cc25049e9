package dev.herald.core.platform;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The identity of a chat platform, as a value: {@code telegram}, {@code api_server}, {@code loopback}.
 *
 * <p>The core never names a concrete platform; adapters declare their own id. Ids are lower-case
 * ASCII letters, digits and underscores so they can appear inside session keys unescaped.
 */
public record Platform(String id) implements Comparable<Platform> {
    private static final Pattern ID = Pattern.compile("[a-z][a-z0-9_]{0,31}");

    public Platform {
        Objects.requireNonNull(id, "platform id");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException(
                    "platform id '" + id + "' is invalid: use 1-32 lower-case letters, digits or '_', starting with a letter");
        }
    }

    public static Platform of(String id) {
        return new Platform(id);
    }

    @Override
    public int compareTo(Platform other) {
        return id.compareTo(other.id);
    }

    @Override
    public String toString() {
        return id;
    }
}
