package dev.herald.platforms.discord;

import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The Discord adapter's settings, validated here, then immutable. {@link #toString()} masks the token.
 *
 * @param token          the bot token (Discord developer portal, Bot, Reset Token); sent as {@code Authorization: Bot <token>}
 * @param apiBase        REST base including the version, {@code https://discord.com/api/v10} (tests point it at a fake)
 * @param gatewayUrl     Gateway WebSocket URL without query, {@code wss://gateway.discord.gg}; {@code ?v=10&encoding=json} is added
 * @param requireMention in guild channels (not threads, not DMs), only messages that mention the bot start a turn
 * @param allowBots      messages from other bots and webhooks start turns too (never the bot's own)
 * @param timing         reconnection and timeout values (tests shorten them)
 */
public record DiscordSettings(String token, URI apiBase, URI gatewayUrl, boolean requireMention, boolean allowBots, Timing timing) {

    public static final URI DEFAULT_API_BASE = URI.create("https://discord.com/api/v10");
    public static final URI DEFAULT_GATEWAY_URL = URI.create("wss://gateway.discord.gg");

    /**
     * Time values of the connection lifecycle.
     *
     * @param reconnectInitial    first reconnection delay (growing to {@code reconnectMax} with jitter; see {@link Backoff})
     * @param reconnectMax        longest reconnection delay
     * @param invalidSessionDelay the shortest wait before a fresh IDENTIFY after INVALID_SESSION (Discord asks for 1-5 s;
     *                            the wait is a random value between this and five times it)
     * @param connectTimeout      WebSocket and HTTP connection timeout; also how long HELLO may take
     * @param readyTimeout        how long {@code start} waits for the first READY before returning with the adapter still connecting
     * @param requestTimeout      one REST request's timeout
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration invalidSessionDelay, Duration connectTimeout,
            Duration readyTimeout, Duration requestTimeout) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(invalidSessionDelay, "invalidSessionDelay");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(readyTimeout, "readyTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofSeconds(10),
                    Duration.ofSeconds(30), Duration.ofSeconds(15));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public DiscordSettings {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("discord - no bot token; set platforms.discord.token");
        }
        token = token.strip();
        apiBase = BaseUrl.of(apiBase, DEFAULT_API_BASE, Set.of("https", "http"), "discord - api_base must be an http(s) URL");
        gatewayUrl = BaseUrl.of(gatewayUrl, DEFAULT_GATEWAY_URL, Set.of("wss", "ws"), "discord - gateway_url must be a ws(s) URL");
        timing = timing == null ? Timing.defaults() : timing;
    }

    /** Defaults for everything but the token: the real Discord, mentions required in channels, bots ignored. */
    public static DiscordSettings of(String token) {
        return new DiscordSettings(token, DEFAULT_API_BASE, DEFAULT_GATEWAY_URL, true, false, Timing.defaults());
    }

    public DiscordSettings withEndpoints(URI api, URI gateway) {
        return new DiscordSettings(token, api, gateway, requireMention, allowBots, timing);
    }

    public DiscordSettings withRequireMention(boolean required) {
        return new DiscordSettings(token, apiBase, gatewayUrl, required, allowBots, timing);
    }

    public DiscordSettings withTiming(Timing t) {
        return new DiscordSettings(token, apiBase, gatewayUrl, requireMention, allowBots, t);
    }

    @Override
    public String toString() {
        return "discord{token=****, api_base=" + apiBase + ", gateway_url=" + gatewayUrl + ", require_mention=" + requireMention
                + ", allow_bots=" + allowBots + "}";
    }
}
