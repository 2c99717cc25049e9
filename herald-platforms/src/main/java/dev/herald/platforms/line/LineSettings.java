package dev.herald.platforms.line;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code platforms.line:} a LINE Official Account through the Messaging API: LINE calls Herald's webhook
 * ({@code /platforms/line/webhook} on the API server's listener) with what people send, and Herald answers with the
 * event's reply token while it is fresh, else with a push message. Users are LINE user ids ({@code U} and 32 hex
 * digits), as the webhook names them. Bound from the configuration, validated, then only read; the time values that are
 * not configured are the adapter's {@link Timing}. {@link #toString()} masks both secrets.
 */
public record LineSettings(
        @Doc("receive LINE messages on the API server's listener (/platforms/line/webhook) and answer through the Messaging API")
        boolean enabled,
        @Doc("the channel access token (LINE Developers console > the channel > Messaging API); required when enabled")
        @EnvOverride({"LINE_CHANNEL_ACCESS_TOKEN"})
        Secret channelAccessToken,
        @Doc("the channel secret (Basic settings), which signs every webhook call (X-Line-Signature); required when enabled")
        @EnvOverride({"LINE_CHANNEL_SECRET"})
        Secret channelSecret,
        @Doc("Messaging API root; change only for a proxy or tests")
        String apiBase,
        @Doc("the API root content is downloaded from (message/{id}/content); change only for a proxy or tests")
        String dataApiBase,
        @Doc("in a group or room, answer only messages that mention the bot (a mention of everyone does not count)")
        boolean requireMention,
        @Doc("answer with the event's reply token (free of charge) only this many seconds after the event, else push; 0 = always push")
        int replyWindowSeconds,
        @Doc("public https address under which LINE can fetch Herald's API server (e.g. https://herald.example.com); "
                + "when set, images the agent sends go out as LINE image messages, else as a text line")
        String publicUrl,
        @Doc("LINE user ids (U and 32 hex digits) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who writes to the account talk to the agent")
        boolean allowAllUsers,
        @Doc("LINE user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String DEFAULT_API_BASE = "https://api.line.me";
    public static final String DEFAULT_DATA_API_BASE = "https://api-data.line.me";
    /** LINE's reply tokens expire about a minute after the event; 50 s leaves room for the request itself. */
    public static final int DEFAULT_REPLY_WINDOW_SECONDS = 50;

    /**
     * Time values of the Messaging API client; not configured (tests shorten them).
     *
     * @param connectTimeout connecting to the API
     * @param requestTimeout one API call, a download included
     * @param rateLimitWait  how long a send waits after a 429 when the answer names no wait
     * @param typingInterval how often the loading animation of a running turn is started again (it shows for 20 s)
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration rateLimitWait, Duration typingInterval) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(rateLimitWait, "rateLimitWait");
            Objects.requireNonNull(typingInterval, "typingInterval");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(5), Duration.ofSeconds(15));
        }
    }

    public LineSettings {
        channelAccessToken = channelAccessToken == null ? Secret.NONE : channelAccessToken;
        channelSecret = channelSecret == null ? Secret.NONE : channelSecret;
        apiBase = apiBase == null || apiBase.isBlank() ? DEFAULT_API_BASE : apiBase.strip();
        dataApiBase = dataApiBase == null || dataApiBase.isBlank() ? DEFAULT_DATA_API_BASE : dataApiBase.strip();
        publicUrl = publicUrl == null || publicUrl.isBlank() ? "" : publicUrl.strip().replaceFirst("/+$", "");
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static LineSettings defaults() {
        return new LineSettings(false, Secret.NONE, Secret.NONE, DEFAULT_API_BASE, DEFAULT_DATA_API_BASE, true, DEFAULT_REPLY_WINDOW_SECONDS, "",
                List.of(), false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one channel, every other key at its default. */
    public static LineSettings of(String apiBase, String dataApiBase, String accessToken, String channelSecret) {
        LineSettings d = defaults();
        return new LineSettings(true, Secret.of(accessToken), Secret.of(channelSecret), apiBase, dataApiBase, d.requireMention,
                d.replyWindowSeconds, d.publicUrl, d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public LineSettings withRequireMention(boolean require) {
        return new LineSettings(enabled, channelAccessToken, channelSecret, apiBase, dataApiBase, require, replyWindowSeconds, publicUrl,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public LineSettings withReplyWindowSeconds(int seconds) {
        return new LineSettings(enabled, channelAccessToken, channelSecret, apiBase, dataApiBase, requireMention, seconds, publicUrl,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public LineSettings withPublicUrl(String url) {
        return new LineSettings(enabled, channelAccessToken, channelSecret, apiBase, dataApiBase, requireMention, replyWindowSeconds, url,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || channelAccessToken.isSet(), "channel_access_token", "is required when " + check.path("enabled")
                + " is true: the channel's long-lived access token, e.g. ${LINE_CHANNEL_ACCESS_TOKEN}");
        check.require(!enabled || channelSecret.isSet(), "channel_secret", "is required when " + check.path("enabled")
                + " is true: without it Herald cannot tell LINE's webhook calls from forged ones");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL such as " + DEFAULT_API_BASE
                + ", was \"" + apiBase + "\"");
        check.require(BaseUrl.valid(dataApiBase, "http", "https"), "data_api_base", "must be an http(s) URL such as " + DEFAULT_DATA_API_BASE
                + ", was \"" + dataApiBase + "\"");
        check.require(replyWindowSeconds >= 0 && replyWindowSeconds <= 60, "reply_window_seconds",
                "must be 0 to 60 (LINE's reply tokens expire about a minute after the event), was " + replyWindowSeconds);
        check.require(publicUrl.isEmpty() || BaseUrl.valid(publicUrl, "https"), "public_url",
                "must be an https URL (LINE fetches images only over https), was \"" + publicUrl + "\"");
        for (String id : allowedUsers) {
            check.require(id.equals("*") || id.matches("U[0-9a-f]{32}"), "allowed_users",
                    "must be LINE user ids (U and 32 hex digits, as the webhook names them; not the display name or LINE ID), was \"" + id + "\"");
        }
    }

    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    URI dataApiUri() {
        return BaseUrl.of(dataApiBase);
    }

    /** The channel access token, for the one client that sends it. */
    String accessTokenValue() {
        return channelAccessToken.reveal()
                .orElseThrow(() -> new IllegalArgumentException("line - no channel_access_token; set platforms.line.channel_access_token"));
    }

    String channelSecretValue() {
        return channelSecret.reveal().orElseThrow(() -> new IllegalArgumentException("line - no channel_secret; set platforms.line.channel_secret"));
    }

    @Override
    public String toString() {
        return "line{channel_access_token=****, channel_secret=****, api_base=" + apiBase + ", data_api_base=" + dataApiBase
                + ", require_mention=" + requireMention + ", reply_window_seconds=" + replyWindowSeconds + ", public_url="
                + (publicUrl.isEmpty() ? "none" : publicUrl) + "}";
    }
}
