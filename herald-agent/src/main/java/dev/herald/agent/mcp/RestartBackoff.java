package dev.herald.agent.mcp;

import java.time.Duration;

/**
 * The wait before reconnection attempt {@code n} of a failed MCP server: {@code initial} doubled per
 * attempt, capped at {@code max} (1 s, 2 s, 4 s ... 60 s by default). No jitter: servers are few and local.
 */
public record RestartBackoff(Duration initial, Duration max) {
    public static final RestartBackoff DEFAULT = new RestartBackoff(Duration.ofSeconds(1), Duration.ofSeconds(60));

    public RestartBackoff {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("restart backoff needs 0 < initial <= max");
        }
    }

    public Duration delay(int attempt) {
        long millis = initial.toMillis() << Math.min(Math.max(attempt - 1, 0), 30);
        return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
    }
}
