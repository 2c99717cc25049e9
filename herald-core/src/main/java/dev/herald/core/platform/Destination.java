package dev.herald.core.platform;

import java.util.Objects;

/** A chat on a platform: where a relayed reply really goes ({@link Relay}). */
public record Destination(Platform platform, ChatTarget target) {
    public Destination {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(target, "target");
    }
}
