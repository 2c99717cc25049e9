package dev.herald.platforms.wecom;

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
import java.util.regex.Pattern;

/**
 * {@code platforms.wecom:} a WeCom (企业微信) self-built app in callback mode: WeCom POSTs the messages members write to the
 * app, encrypted and signed, to Herald's callback URL ({@code /platforms/wecom/callback} on the API server's listener),
 * and Herald answers through {@code cgi-bin/message/send}. App chats are one member and the app (1:1), so there is no
 * {@code require_mention}. Users are WeCom UserIDs. {@link #toString()} masks the three secrets.
 */
public record WeComSettings(
        @Doc("receive WeCom app messages on the API server's listener (/platforms/wecom/callback) and answer through the WeCom API")
        boolean enabled,
        @Doc("the company's CorpID (My Company > Company Information), e.g. ww1234567890abcdef; required when enabled")
        String corpId,
        @Doc("the self-built app's AgentId (App Management > the app); required when enabled")
        long agentId,
        @Doc("the app's Secret (App Management > the app > Secret), for access tokens; required when enabled")
        @EnvOverride({"WECOM_CORP_SECRET"})
        Secret corpSecret,
        @Doc("the Token of the app's \"Receive Messages\" API settings, which signs every callback; required when enabled")
        @EnvOverride({"WECOM_TOKEN"})
        Secret token,
        @Doc("the EncodingAESKey (43 characters) of the same settings, which encrypts every callback; required when enabled")
        @EnvOverride({"WECOM_ENCODING_AES_KEY"})
        Secret encodingAesKey,
        @Doc("WeCom API root; change only for a proxy or tests")
        String apiBase,
        @Doc("send replies as WeCom markdown messages (shown by the WeCom app only; the WeChat plug-in shows them as unsupported); false = plain text")
        boolean markdown,
        @Doc("WeCom UserIDs (e.g. ZhangSan) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let every member who can see the app talk to the agent")
        boolean allowAllUsers,
        @Doc("UserIDs that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown member's message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** WeCom's API host. */
    public static final String DEFAULT_API_BASE = "https://qyapi.weixin.qq.com";
    private static final Pattern CORP_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern AES_KEY = Pattern.compile("[A-Za-z0-9]{43}");
    private static final Pattern USER_ID = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");

    /**
     * Time values of the callback and the API client; not configured (tests shorten them).
     *
     * @param connectTimeout   connecting to the WeCom API
     * @param requestTimeout   one API call, an upload included
     * @param timestampWindow  how far a callback's signed {@code timestamp} may be from Herald's clock
     * @param busyWait         how long a send waits after errcode -1 (system busy) or 45009 (rate limit)
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration timestampWindow, Duration busyWait) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(timestampWindow, "timestampWindow");
            Objects.requireNonNull(busyWait, "busyWait");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofMinutes(5), Duration.ofSeconds(2));
        }
    }

    public WeComSettings {
        corpId = corpId == null ? "" : corpId.strip();
        corpSecret = corpSecret == null ? Secret.NONE : corpSecret;
        token = token == null ? Secret.NONE : token;
        encodingAesKey = encodingAesKey == null ? Secret.NONE : encodingAesKey;
        apiBase = apiBase == null || apiBase.isBlank() ? DEFAULT_API_BASE : apiBase.strip();
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static WeComSettings defaults() {
        return new WeComSettings(false, "", 0, Secret.NONE, Secret.NONE, Secret.NONE, DEFAULT_API_BASE, true, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one app, every other key at its default. */
    public static WeComSettings of(String apiBase, String corpId, long agentId, String corpSecret, String token, String encodingAesKey) {
        WeComSettings d = defaults();
        return new WeComSettings(true, corpId, agentId, Secret.of(corpSecret), Secret.of(token), Secret.of(encodingAesKey), apiBase, d.markdown,
                d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public WeComSettings withMarkdown(boolean on) {
        return new WeComSettings(enabled, corpId, agentId, corpSecret, token, encodingAesKey, apiBase, on, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        String when = " is required when " + check.path("enabled") + " is true";
        check.require(!enabled || CORP_ID.matcher(corpId).matches(), "corp_id", when + ": the CorpID from My Company > Company Information, was \""
                + corpId + "\"");
        check.require(corpId.isEmpty() || CORP_ID.matcher(corpId).matches(), "corp_id", "must be letters, digits, _ or -, was \"" + corpId + "\"");
        check.require(!enabled || agentId > 0, "agent_id", when + ": the app's AgentId (a number), was " + agentId);
        check.require(agentId >= 0, "agent_id", "must be a positive number, was " + agentId);
        check.require(!enabled || corpSecret.isSet(), "corp_secret", when + ": the app's Secret, e.g. ${WECOM_CORP_SECRET}");
        check.require(!enabled || token.isSet(), "token", when + ": without it Herald cannot tell WeCom's callbacks from forged ones");
        check.require(!enabled || encodingAesKey.isSet(), "encoding_aes_key", when + ": WeCom encrypts every callback with it");
        check.require(encodingAesKey.reveal().map(k -> AES_KEY.matcher(k).matches()).orElse(true), "encoding_aes_key",
                "must be the 43 letters and digits WeCom shows (Receive Messages > API settings > EncodingAESKey)");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL such as " + DEFAULT_API_BASE
                + ", was \"" + apiBase + "\"");
        for (String id : allowedUsers) {
            check.require(id == null || id.equals("*") || USER_ID.matcher(id).matches(), "allowed_users",
                    "must be WeCom UserIDs (letters, digits, _ . @ -), was \"" + id + "\"");
        }
    }

    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    String corpSecretValue() {
        return corpSecret.reveal().orElseThrow(() -> new IllegalArgumentException("wecom - no corp_secret; set platforms.wecom.corp_secret"));
    }

    String tokenValue() {
        return token.reveal().orElseThrow(() -> new IllegalArgumentException("wecom - no token; set platforms.wecom.token"));
    }

    String encodingAesKeyValue() {
        return encodingAesKey.reveal().orElseThrow(() -> new IllegalArgumentException(
                "wecom - no encoding_aes_key; set platforms.wecom.encoding_aes_key"));
    }

    @Override
    public String toString() {
        return "wecom{corp_id=" + corpId + ", agent_id=" + agentId + ", corp_secret=****, token=****, encoding_aes_key=****, api_base=" + apiBase
                + ", markdown=" + markdown + "}";
    }
}
