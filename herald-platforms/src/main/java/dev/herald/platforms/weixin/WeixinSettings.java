package dev.herald.platforms.weixin;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.platforms.common.BaseUrl;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code platforms.weixin:} personal WeChat through the iLink bot API (the bot token comes from scanning
 * the iLink login QR code with the WeChat account the bot speaks as). Direct messages, text only. Bound from the
 * configuration, validated, then only read; the adapter's time values, which are not configured, are its
 * {@link Timing}.
 */
public record WeixinSettings(
        @Doc("connect to WeChat through the iLink bot API")
        boolean enabled,
        @Doc("iLink bot token (from the QR-code login); required when enabled")
        @EnvOverride({"WEIXIN_BOT_TOKEN"})
        Secret token,
        @Doc("iLink bot API root (the baseurl returned by the QR-code login)")
        String apiBase,
        @Doc("WeChat user ids (e.g. wxid_...@im.wechat) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any WeChat user who writes to the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** The iLink bot API's root. */
    public static final String DEFAULT_API_BASE = "https://ilinkai.weixin.qq.com";

    /**
     * How the adapter paces itself; not configured.
     *
     * @param pollWait       how long the client waits for one long poll (the server answers within ~35 s)
     * @param firstPollWait  how long start waits for the first poll before reporting the platform connected
     * @param idlePollDelay  pause after an empty poll that came back early
     * @param reconnectFirst first delay after a failed poll; doubles up to {@code reconnectMax}, with jitter
     * @param reconnectMax   longest delay between reconnection attempts
     */
    public record Timing(Duration pollWait, Duration firstPollWait, Duration idlePollDelay, Duration reconnectFirst, Duration reconnectMax) {
        public Timing {
            Objects.requireNonNull(pollWait, "pollWait");
            Objects.requireNonNull(firstPollWait, "firstPollWait");
            Objects.requireNonNull(idlePollDelay, "idlePollDelay");
            Objects.requireNonNull(reconnectFirst, "reconnectFirst");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
        }

        /** 40 s client wait per poll, 5 s for the first, reconnect from 1 s to 60 s. */
        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(40), Duration.ofSeconds(5), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMinutes(1));
        }
    }

    public WeixinSettings {
        token = token == null ? Secret.NONE : token;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static WeixinSettings defaults() {
        return new WeixinSettings(false, Secret.NONE, DEFAULT_API_BASE, List.of(), false, List.of(), HomeChannelConfig.defaults(),
                UnauthorizedDm.PAIR);
    }

    /** Enabled settings for the bot {@code token} at {@code apiBase}, every other key at its default. */
    public static WeixinSettings of(String apiBase, String token) {
        WeixinSettings d = defaults();
        return new WeixinSettings(true, Secret.of(token), apiBase, d.allowedUsers(), d.allowAllUsers(), d.admins(), d.homeChannel(),
                d.unauthorizedDm());
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base",
                "must be an http(s) URL such as " + DEFAULT_API_BASE + ", was \"" + apiBase + "\"");
        check.require(!enabled || token.isSet(), "token", "is required when " + check.path("enabled")
                + " is true; log in through the iLink QR code, then set token: ${WEIXIN_BOT_TOKEN}");
    }

    /** The bot token, for the one client that sends it. */
    String tokenValue() {
        return token.reveal().orElseThrow(() -> new IllegalArgumentException("weixin - no bot token; set platforms.weixin.token"));
    }
}
