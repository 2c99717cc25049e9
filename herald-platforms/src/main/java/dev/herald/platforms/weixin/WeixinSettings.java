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
 * the iLink login QR code with the WeChat account the bot speaks as). Direct and group chats, text and media. Bound from the
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
        @Doc("WeChat's media CDN, where images, voice, files and videos are downloaded from and uploaded to (encrypted); only this host is contacted")
        String cdnBase,
        @Doc("the largest file taken in or sent out, in bytes; a larger one is refused and the chat is told")
        long maxFileBytes,
        @Doc("in group chats, only messages that name the bot (one of mention_names) start a turn; one-to-one chats always do")
        boolean requireMention,
        @Doc("the words that address the bot in a group chat, e.g. its WeChat name as written after @; matched as @name anywhere or as a whole word, any case")
        List<String> mentionNames,
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
    /** WeChat's media CDN as the iLink clients use it. */
    public static final String DEFAULT_CDN_BASE = WeixinCdn.DEFAULT_CDN_BASE;
    /** 25 MiB. */
    public static final long DEFAULT_MAX_FILE_BYTES = 25L * 1024 * 1024;

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
        mentionNames = mentionNames == null ? List.of() : mentionNames.stream().filter(Objects::nonNull).map(String::strip)
                .filter(n -> !n.isEmpty()).toList();
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static WeixinSettings defaults() {
        return new WeixinSettings(false, Secret.NONE, DEFAULT_API_BASE, DEFAULT_CDN_BASE, DEFAULT_MAX_FILE_BYTES, true, List.of(), List.of(),
                false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for the bot {@code token} at {@code apiBase}, every other key at its default. */
    public static WeixinSettings of(String apiBase, String token) {
        WeixinSettings d = defaults();
        return new WeixinSettings(true, Secret.of(token), apiBase, d.cdnBase(), d.maxFileBytes(), d.requireMention(), d.mentionNames(),
                d.allowedUsers(), d.allowAllUsers(), d.admins(), d.homeChannel(), d.unauthorizedDm());
    }

    /** These settings with media on {@code cdn} and files up to {@code maxBytes}. */
    public WeixinSettings withMedia(String cdn, long maxBytes) {
        return new WeixinSettings(enabled, token, apiBase, cdn, maxBytes, requireMention, mentionNames, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm);
    }

    /** These settings letting {@code users} talk to the agent. */
    public WeixinSettings withAllowedUsers(List<String> users) {
        return new WeixinSettings(enabled, token, apiBase, cdnBase, maxFileBytes, requireMention, mentionNames, users, allowAllUsers, admins,
                homeChannel, unauthorizedDm);
    }

    /** These settings answering group messages that name one of {@code names} (all group messages when {@code require} is off). */
    public WeixinSettings withMentions(boolean require, List<String> names) {
        return new WeixinSettings(enabled, token, apiBase, cdnBase, maxFileBytes, require, names, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base",
                "must be an http(s) URL such as " + DEFAULT_API_BASE + ", was \"" + apiBase + "\"");
        check.require(BaseUrl.valid(cdnBase, "http", "https"), "cdn_base",
                "must be an http(s) URL such as " + DEFAULT_CDN_BASE + ", was \"" + cdnBase + "\"");
        check.require(maxFileBytes >= 1024 && maxFileBytes <= 1024L * 1024 * 1024, "max_file_bytes",
                "must be between 1024 and 1073741824 bytes, was " + maxFileBytes);
        check.require(!enabled || token.isSet(), "token", "is required when " + check.path("enabled")
                + " is true; log in through the iLink QR code, then set token: ${WEIXIN_BOT_TOKEN}");
    }

    /** The bot token, for the one client that sends it. */
    String tokenValue() {
        return token.reveal().orElseThrow(() -> new IllegalArgumentException("weixin - no bot token; set platforms.weixin.token"));
    }
}
