package dev.herald.app.config;

/**
 * {@code platforms:} one component per chat platform. Adding a platform is its record plus one component
 * here and its {@code defaults()} in {@link #defaults()}; the loader finds everything else by reflection.
 */
public record PlatformsConfig(
        ApiServerConfig apiServer,
        TelegramConfig telegram,
        WeixinConfig weixin,
        DiscordConfig discord,
        SlackConfig slack,
        WebhookConfig webhook,
        WebChatConfig webchat) {

    public static PlatformsConfig defaults() {
        return new PlatformsConfig(ApiServerConfig.defaults(), TelegramConfig.defaults(), WeixinConfig.defaults(),
                DiscordConfig.defaults(), SlackConfig.defaults(), WebhookConfig.defaults(), WebChatConfig.defaults());
    }
}
