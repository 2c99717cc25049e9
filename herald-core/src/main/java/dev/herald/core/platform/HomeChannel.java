package dev.herald.core.platform;

import java.util.Objects;

/**
 * A platform's home channel: where gateway notices go (restart and shutdown banners, failures)
 * even when nobody is talking to the agent.
 */
public record HomeChannel(Platform platform, ChatTarget target, String name) {
    public HomeChannel {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(target, "target");
        name = name == null || name.isBlank() ? "Home" : name;
    }
}
