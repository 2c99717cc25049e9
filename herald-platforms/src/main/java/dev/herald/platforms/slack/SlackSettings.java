package dev.herald.platforms.slack;

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
 * {@code platforms.slack:} a Slack app over Socket Mode (events) and the Web API (replies). Needs an
 * app-level token ({@code xapp-}, scope connections:write) and a bot token ({@code xoxb-}). Who may talk to
 * the agent is set by the shared access keys of every platform. Bound from the configuration, validated, then only
 * read; the adapter's time values, which are not configured, are its {@link Timing}. {@link #toString()} masks both
 * tokens.
 */
public record SlackSettings(
        @Doc("connect to Slack over Socket Mode")
        boolean enabled,
        @Doc("app-level token, xapp-... (Basic Information > App-Level Tokens, scope connections:write); required when enabled")
        Secret appToken,
        @Doc("bot token, xoxb-... (OAuth & Permissions > Bot User OAuth Token); required when enabled")
        Secret botToken,
        @Doc("Web API base; change only for a proxy or tests")
        String apiBase,
        @Doc("in channels, only top-level messages that mention the bot start a turn (threads and DMs always do)")
        boolean requireMention,
        @Doc("messages from other bots start turns too (the bot's own never do)")
        boolean allowBots,
        @Doc("Slack member ids (U...) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any Slack user who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm,
        @Doc("show replies while they are written, by editing one message (at most one edit per second)")
        boolean streaming) implements PlatformAccess, Validated {

    /** Slack's Web API. */
    public static final String DEFAULT_API_BASE = "https://slack.com/api";

    /**
     * Time values of the connection lifecycle; not configured (tests shorten them).
     *
     * @param reconnectInitial first reconnection delay (growing to {@code reconnectMax} with jitter; see {@link Backoff})
     * @param reconnectMax     longest reconnection delay
     * @param connectTimeout   WebSocket and HTTP connection timeout; also how long {@code hello} may take
     * @param pingInterval     how often Herald pings the Socket Mode connection
     * @param idleTimeout      a connection that has heard nothing (not even a pong) this long is replaced
     * @param requestTimeout   one Web API request's timeout
     * @param editInterval     while streaming, at most one {@code chat.update} of a reply's draft per this interval ({@code
     *                         chat.update} is Tier 3, about 50 a minute)
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration connectTimeout, Duration pingInterval,
            Duration idleTimeout, Duration requestTimeout, Duration editInterval) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(pingInterval, "pingInterval");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(editInterval, "editInterval");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(10), Duration.ofSeconds(20),
                    Duration.ofSeconds(70), Duration.ofSeconds(15), Duration.ofSeconds(1));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public SlackSettings {
        appToken = appToken == null ? Secret.NONE : appToken;
        botToken = botToken == null ? Secret.NONE : botToken;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static SlackSettings defaults() {
        return new SlackSettings(false, Secret.NONE, Secret.NONE, DEFAULT_API_BASE, true, false, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR, true);
    }

    /** Enabled settings for the two tokens: the real Slack, mentions required in channels, bots ignored. */
    public static SlackSettings of(String appToken, String botToken) {
        SlackSettings d = defaults();
        return new SlackSettings(true, Secret.of(appToken), Secret.of(botToken), d.apiBase, d.requireMention, d.allowBots, d.allowedUsers,
                d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm, d.streaming);
    }

    public SlackSettings withApiBase(URI base) {
        return new SlackSettings(enabled, appToken, botToken, base.toString(), requireMention, allowBots, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm, streaming);
    }

    public SlackSettings withRequireMention(boolean required) {
        return new SlackSettings(enabled, appToken, botToken, apiBase, required, allowBots, allowedUsers, allowAllUsers, admins, homeChannel,
                unauthorizedDm, streaming);
    }

    /** These settings with replies streamed by edits ({@code streaming}) or not. */
    public SlackSettings withStreaming(boolean on) {
        return new SlackSettings(enabled, appToken, botToken, apiBase, requireMention, allowBots, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm, on);
    }

    public SlackSettings withTokens(String app, String bot) {
        return new SlackSettings(enabled, Secret.of(app), Secret.of(bot), apiBase, requireMention, allowBots, allowedUsers, allowAllUsers,
                admins, homeChannel, unauthorizedDm, streaming);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || appToken.isSet(), "app_token", "is required when " + check.path("enabled")
                + " is true: an app-level token (xapp-...) with the connections:write scope");
        check.require(!enabled || botToken.isSet(), "bot_token", "is required when " + check.path("enabled")
                + " is true: the bot token (xoxb-...)");
        check.require(!appToken.isSet() || appToken.reveal().orElse("").startsWith("xapp-"), "app_token",
                "must be an app-level token starting with xapp- (a bot token starts with xoxb-)");
        check.require(!botToken.isSet() || botToken.reveal().orElse("").startsWith("xoxb-"), "bot_token",
                "must be a bot token starting with xoxb-");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL, was \"" + apiBase + "\"");
    }

    /** The Web API base without a trailing slash. */
    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    /** The app-level token, for the one call that opens Socket Mode connections. */
    String appTokenValue() {
        return appToken.reveal().orElseThrow(() -> new IllegalArgumentException("slack - no app_token; set platforms.slack.app_token"));
    }

    /** The bot token, for the Web API calls and the files it fetches. */
    String botTokenValue() {
        return botToken.reveal().orElseThrow(() -> new IllegalArgumentException("slack - no bot_token; set platforms.slack.bot_token"));
    }

    @Override
    public String toString() {
        return "slack{app_token=****, bot_token=****, api_base=" + apiBase + ", require_mention=" + requireMention
                + ", allow_bots=" + allowBots + ", streaming=" + streaming + "}";
    }
}
