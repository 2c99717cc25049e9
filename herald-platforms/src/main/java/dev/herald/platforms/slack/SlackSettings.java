package dev.herald.platforms.slack;

import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The Slack adapter's settings, validated here, then immutable. {@link #toString()} masks both tokens.
 *
 * @param appToken       the app-level token ({@code xapp-...}, scope {@code connections:write}) that opens Socket Mode connections
 * @param botToken       the bot token ({@code xoxb-...}) that calls the Web API
 * @param apiBase        Web API base, {@code https://slack.com/api} (tests point it at a fake)
 * @param requireMention in channels, a top-level message starts a turn only when it mentions the bot (threads and DMs always do)
 * @param allowBots      messages from other bots start turns too (never the bot's own)
 * @param timing         reconnection and timeout values (tests shorten them)
 */
public record SlackSettings(String appToken, String botToken, URI apiBase, boolean requireMention, boolean allowBots, Timing timing) {

    public static final URI DEFAULT_API_BASE = URI.create("https://slack.com/api");

    /**
     * Time values of the connection lifecycle.
     *
     * @param reconnectInitial first reconnection delay (growing to {@code reconnectMax} with jitter; see {@link Backoff})
     * @param reconnectMax     longest reconnection delay
     * @param connectTimeout   WebSocket and HTTP connection timeout; also how long {@code hello} may take
     * @param pingInterval     how often Herald pings the Socket Mode connection
     * @param idleTimeout      a connection that has heard nothing (not even a pong) this long is replaced
     * @param requestTimeout   one Web API request's timeout
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration connectTimeout, Duration pingInterval,
            Duration idleTimeout, Duration requestTimeout) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(pingInterval, "pingInterval");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(10), Duration.ofSeconds(20),
                    Duration.ofSeconds(70), Duration.ofSeconds(15));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public SlackSettings {
        appToken = require(appToken, "xapp-", "app_token", "an app-level token");
        botToken = require(botToken, "xoxb-", "bot_token", "a bot token");
        apiBase = BaseUrl.of(apiBase, DEFAULT_API_BASE, Set.of("https", "http"), "slack - api_base must be an http(s) URL");
        timing = timing == null ? Timing.defaults() : timing;
    }

    /** Defaults for everything but the tokens: the real Slack, mentions required in channels, bots ignored. */
    public static SlackSettings of(String appToken, String botToken) {
        return new SlackSettings(appToken, botToken, DEFAULT_API_BASE, true, false, Timing.defaults());
    }

    public SlackSettings withApiBase(URI base) {
        return new SlackSettings(appToken, botToken, base, requireMention, allowBots, timing);
    }

    public SlackSettings withRequireMention(boolean required) {
        return new SlackSettings(appToken, botToken, apiBase, required, allowBots, timing);
    }

    public SlackSettings withTiming(Timing t) {
        return new SlackSettings(appToken, botToken, apiBase, requireMention, allowBots, t);
    }

    private static String require(String token, String prefix, String key, String what) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("slack - no " + key + "; set platforms.slack." + key + " to " + what + " (" + prefix + "...)");
        }
        String t = token.strip();
        if (!t.startsWith(prefix)) {
            throw new IllegalArgumentException("slack - platforms.slack." + key + " must be " + what + " starting with " + prefix);
        }
        return t;
    }

    @Override
    public String toString() {
        return "slack{app_token=****, bot_token=****, api_base=" + apiBase + ", require_mention=" + requireMention
                + ", allow_bots=" + allowBots + "}";
    }
}
