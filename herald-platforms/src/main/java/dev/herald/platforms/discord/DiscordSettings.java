package dev.herald.platforms.discord;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code platforms.discord:} a Discord bot over the Gateway WebSocket and REST. Needs a bot token and, in
 * the developer portal, the privileged MESSAGE CONTENT intent. Who may talk to the agent is set by the
 * shared access keys of every platform. Bound from the configuration, validated, then only read; the adapter's time
 * values, which are not configured, are its {@link Timing}. {@link #toString()} masks the token.
 */
public record DiscordSettings(
        @Doc("connect to Discord as a bot")
        boolean enabled,
        @Doc("bot token (Developer Portal > your application > Bot > Reset Token); required when enabled")
        Secret token,
        @Doc("REST API base, including the version; change only for a proxy or tests")
        String apiBase,
        @Doc("Gateway WebSocket URL (?v=10&encoding=json is added); change only for a proxy or tests")
        String gatewayUrl,
        @Doc("in server channels, only messages that mention the bot start a turn (threads and DMs always do)")
        boolean requireMention,
        @Doc("messages from other bots and webhooks start turns too (the bot's own never do)")
        boolean allowBots,
        @Doc("Discord user ids (snowflakes) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any Discord user who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm,
        @Doc("show replies while they are written, by editing one message (at most one edit per second)")
        boolean streaming) implements PlatformAccess, Validated {

    /** Discord's REST API, version 10. */
    public static final String DEFAULT_API_BASE = "https://discord.com/api/v10";
    /** Discord's Gateway. */
    public static final String DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg";

    /**
     * Time values of the connection lifecycle; not configured (tests shorten them).
     *
     * @param reconnectInitial    first reconnection delay (growing to {@code reconnectMax} with jitter; see {@link Backoff})
     * @param reconnectMax        longest reconnection delay
     * @param invalidSessionDelay the shortest wait before a fresh IDENTIFY after INVALID_SESSION (Discord asks for 1-5 s;
     *                            the wait is a random value between this and five times it)
     * @param connectTimeout      WebSocket and HTTP connection timeout; also how long HELLO may take
     * @param readyTimeout        how long {@code start} waits for the first READY before returning with the adapter still connecting
     * @param requestTimeout      one REST request's timeout
     * @param editInterval        while streaming, at most one edit of a reply's draft per this interval (Discord allows
     *                            about five edits per five seconds in a channel)
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration invalidSessionDelay, Duration connectTimeout,
            Duration readyTimeout, Duration requestTimeout, Duration editInterval) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(invalidSessionDelay, "invalidSessionDelay");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(readyTimeout, "readyTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(editInterval, "editInterval");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofSeconds(10),
                    Duration.ofSeconds(30), Duration.ofSeconds(15), Duration.ofSeconds(1));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public DiscordSettings {
        token = token == null ? Secret.NONE : token;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static DiscordSettings defaults() {
        return new DiscordSettings(false, Secret.NONE, DEFAULT_API_BASE, DEFAULT_GATEWAY_URL, true, false, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR, true);
    }

    /** Enabled settings for the bot {@code token}: the real Discord, mentions required in channels, bots ignored. */
    public static DiscordSettings of(String token) {
        DiscordSettings d = defaults();
        return new DiscordSettings(true, Secret.of(token), d.apiBase, d.gatewayUrl, d.requireMention, d.allowBots, d.allowedUsers,
                d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm, d.streaming);
    }

    public DiscordSettings withEndpoints(URI api, URI gateway) {
        return new DiscordSettings(enabled, token, api.toString(), gateway.toString(), requireMention, allowBots, allowedUsers, allowAllUsers,
                admins, homeChannel, unauthorizedDm, streaming);
    }

    public DiscordSettings withRequireMention(boolean required) {
        return new DiscordSettings(enabled, token, apiBase, gatewayUrl, required, allowBots, allowedUsers, allowAllUsers, admins, homeChannel,
                unauthorizedDm, streaming);
    }

    /** These settings with replies streamed by edits ({@code streaming}) or not. */
    public DiscordSettings withStreaming(boolean on) {
        return new DiscordSettings(enabled, token, apiBase, gatewayUrl, requireMention, allowBots, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm, on);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || token.isSet(), "token", "is required when " + check.path("enabled") + " is true: create a bot "
                + "at https://discord.com/developers/applications and set token: ${DISCORD_BOT_TOKEN}");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL, was \"" + apiBase + "\"");
        check.require(BaseUrl.valid(gatewayUrl, "ws", "wss"), "gateway_url", "must be a ws(s) URL, was \"" + gatewayUrl + "\"");
    }

    /** The REST base without a trailing slash. */
    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    /** The Gateway URL without query or trailing slash. */
    URI gatewayUri() {
        return BaseUrl.of(gatewayUrl);
    }

    /** The bot token, for the one client that sends it ({@code Authorization: Bot <token>}, IDENTIFY). */
    String tokenValue() {
        return token.reveal().orElseThrow(() -> new IllegalArgumentException("discord - no bot token; set platforms.discord.token"));
    }

    @Override
    public String toString() {
        return "discord{token=****, api_base=" + apiBase + ", gateway_url=" + gatewayUrl + ", require_mention=" + requireMention
                + ", allow_bots=" + allowBots + ", streaming=" + streaming + "}";
    }
}
