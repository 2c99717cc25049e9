package dev.herald.app.config;

import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;

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
        WebChatConfig webchat) implements Validated {

    public static PlatformsConfig defaults() {
        return new PlatformsConfig(ApiServerConfig.defaults(), TelegramConfig.defaults(), WeixinConfig.defaults(),
                DiscordConfig.defaults(), SlackConfig.defaults(), WebhookConfig.defaults(), WebChatConfig.defaults());
    }

    /**
     * Rules across sections: the webhook routes listen on the API server's host, so a route that checks no
     * signature is refused unless that host is loopback.
     */
    @Override
    public void validate(ConfigChecks check) {
        if (!webhook.enabled() || ApiServerConfig.isLoopback(apiServer.host())) {
            return;
        }
        webhook.routes().forEach((name, route) -> check.require(route.signature() != WebhookSignature.NONE,
                "webhook.routes." + name + ".signature", "is none while " + check.path("api_server.host") + " is " + apiServer.host()
                        + " (not a loopback address), so anyone who can reach the port could post to it; use github, gitlab or "
                        + "standard with a secret, or bind the host to 127.0.0.1"));
    }
}
