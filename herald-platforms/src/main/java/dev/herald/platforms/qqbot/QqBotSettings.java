package dev.herald.platforms.qqbot;

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
 * {@code platforms.qqbot:} a bot of the QQ open platform (API v2) in one-to-one (C2C) chats and groups, over the
 * WebSocket gateway for events and the REST API for replies. Needs the bot's AppID and AppSecret (q.qq.com, the bot's
 * development settings). Bound from the configuration, validated, then only read; the adapter's time values, which are
 * not configured, are its {@link Timing}. {@link #toString()} masks the secret.
 */
public record QqBotSettings(
        @Doc("connect to the QQ open platform as a bot")
        boolean enabled,
        @Doc("the bot's AppID (q.qq.com > your bot > development settings); required when enabled")
        String appId,
        @Doc("the bot's AppSecret (clientSecret); required when enabled")
        Secret clientSecret,
        @Doc("REST API base: https://api.sgroup.qq.com, or https://sandbox.api.sgroup.qq.com for the sandbox; change otherwise only for tests")
        String apiBase,
        @Doc("where the access token is fetched; change only for tests")
        String tokenUrl,
        @Doc("send replies as QQ markdown (msg_type 2); only for bots QQ has granted markdown, otherwise plain text")
        boolean markdown,
        @Doc("user openids (user_openid in one-to-one chats, member_openid in groups) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any QQ user who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("openids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's one-to-one message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** The production REST API. */
    public static final String DEFAULT_API_BASE = "https://api.sgroup.qq.com";
    /** The sandbox REST API (a sandbox bot, sandbox groups). */
    public static final String SANDBOX_API_BASE = "https://sandbox.api.sgroup.qq.com";
    /** Where an AppID and AppSecret are exchanged for an access token. */
    public static final String DEFAULT_TOKEN_URL = "https://bots.qq.com/app/getAppAccessToken";

    /**
     * Time values of the adapter; not configured (tests shorten them).
     *
     * @param reconnectInitial    first reconnection delay (growing to {@code reconnectMax} with jitter)
     * @param reconnectMax        longest reconnection delay
     * @param invalidSessionDelay the wait before a fresh IDENTIFY after INVALID_SESSION
     * @param connectTimeout      WebSocket and HTTP connection timeout; also how long HELLO may take
     * @param readyTimeout        how long {@code start} waits for the first READY
     * @param requestTimeout      one REST request's timeout
     * @param tokenMargin         an access token is renewed this long before QQ says it expires
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration invalidSessionDelay, Duration connectTimeout,
            Duration readyTimeout, Duration requestTimeout, Duration tokenMargin) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(invalidSessionDelay, "invalidSessionDelay");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(readyTimeout, "readyTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(tokenMargin, "tokenMargin");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(2), Duration.ofSeconds(10),
                    Duration.ofSeconds(30), Duration.ofSeconds(15), Duration.ofSeconds(60));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public QqBotSettings {
        appId = appId == null ? "" : appId.strip();
        clientSecret = clientSecret == null ? Secret.NONE : clientSecret;
        apiBase = apiBase == null || apiBase.isBlank() ? DEFAULT_API_BASE : apiBase;
        tokenUrl = tokenUrl == null || tokenUrl.isBlank() ? DEFAULT_TOKEN_URL : tokenUrl;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
        homeChannel = homeChannel == null ? HomeChannelConfig.defaults() : homeChannel;
        unauthorizedDm = unauthorizedDm == null ? UnauthorizedDm.PAIR : unauthorizedDm;
    }

    public static QqBotSettings defaults() {
        return new QqBotSettings(false, "", Secret.NONE, DEFAULT_API_BASE, DEFAULT_TOKEN_URL, false, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for the bot {@code appId}/{@code secret} on the production API. */
    public static QqBotSettings of(String appId, String secret) {
        QqBotSettings d = defaults();
        return new QqBotSettings(true, appId, Secret.of(secret), d.apiBase, d.tokenUrl, false, d.allowedUsers, d.allowAllUsers, d.admins,
                d.homeChannel, d.unauthorizedDm);
    }

    public QqBotSettings withEndpoints(URI api, URI token) {
        return new QqBotSettings(enabled, appId, clientSecret, api.toString(), token.toString(), markdown, allowedUsers, allowAllUsers,
                admins, homeChannel, unauthorizedDm);
    }

    public QqBotSettings withMarkdown(boolean on) {
        return new QqBotSettings(enabled, appId, clientSecret, apiBase, tokenUrl, on, allowedUsers, allowAllUsers, admins, homeChannel,
                unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || !appId.isEmpty(), "app_id", "is required when " + check.path("enabled")
                + " is true: the AppID from q.qq.com > your bot > development settings");
        check.require(!enabled || clientSecret.isSet(), "client_secret", "is required when " + check.path("enabled")
                + " is true: set client_secret: ${QQBOT_APP_SECRET}");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL, was \"" + apiBase + "\"");
        check.require(BaseUrl.valid(tokenUrl, "http", "https"), "token_url", "must be an http(s) URL, was \"" + tokenUrl + "\"");
    }

    /** The REST base without a trailing slash. */
    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    /** The AppSecret, for the one request that sends it. */
    String secretValue() {
        return clientSecret.reveal().orElseThrow(() -> new IllegalArgumentException(
                "qqbot - no AppSecret; set platforms.qqbot.client_secret"));
    }

    @Override
    public String toString() {
        return "qqbot{app_id=" + appId + ", client_secret=****, api_base=" + apiBase + ", markdown=" + markdown + "}";
    }
}
