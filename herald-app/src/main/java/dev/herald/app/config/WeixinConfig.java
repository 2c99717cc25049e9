package dev.herald.app.config;

import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.UnauthorizedDm;
import java.util.List;

/**
 * {@code platforms.weixin:} personal WeChat through the iLink bot API (the bot token comes from scanning
 * the iLink login QR code with the WeChat account the bot speaks as). Direct messages, text only.
 */
public record WeixinConfig(
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

    public WeixinConfig {
        token = token == null ? Secret.NONE : token;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static WeixinConfig defaults() {
        return new WeixinConfig(false, Secret.NONE, "https://ilinkai.weixin.qq.com", List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(TelegramConfig.HttpBase.valid(apiBase), "api_base",
                "must be an http(s) URL such as https://ilinkai.weixin.qq.com, was \"" + apiBase + "\"");
        check.require(!enabled || token.isSet(), "token", "is required when " + check.path("enabled")
                + " is true; log in through the iLink QR code, then set token: ${WEIXIN_BOT_TOKEN}");
    }
}
