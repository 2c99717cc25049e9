package dev.herald.app.config;

import dev.herald.web.api.ApiServerConfig;
import dev.herald.web.chat.WebChatConfig;
import dev.herald.web.webhook.WebhookConfig;

import dev.herald.app.plugins.PlatformPlugins;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Validated;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code platforms:} the web surfaces Herald wires itself (the API server, the webhooks and the web chat share one web
 * server) and one section per chat platform plug-in, {@code platforms.<type>}, bound into the plug-in's own settings
 * record. No chat platform is listed here: the loader binds a section for every plug-in it finds
 * ({@link PlatformPlugins}), in their order, between {@code api_server} and {@code webhook}.
 *
 * @param chat the plug-ins' sections by type
 */
public record PlatformsConfig(
        ApiServerConfig apiServer,
        @PlatformSections
        Map<String, PluginSection> chat,
        WebhookConfig webhook,
        WebChatConfig webchat) implements Validated {

    public PlatformsConfig {
        chat = chat == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(chat));
    }

    /** Every key at its default, Herald's own plug-ins included. */
    public static PlatformsConfig defaults() {
        return defaults(PlatformPlugins.builtIn());
    }

    /** Every key at its default, with a section for each of {@code plugins}. */
    public static PlatformsConfig defaults(PlatformPlugins plugins) {
        Map<String, PluginSection> chat = new LinkedHashMap<>();
        plugins.all().forEach(p -> chat.put(p.type(), PluginSection.defaults(p)));
        return new PlatformsConfig(ApiServerConfig.defaults(), chat, WebhookConfig.defaults(), WebChatConfig.defaults());
    }

    /** Every platform name a section is kept under: the web surfaces and the plug-ins' types, in order. */
    public List<String> names() {
        List<String> names = new ArrayList<>(List.of("api_server"));
        names.addAll(chat.keySet());
        names.addAll(List.of("webhook", "webchat"));
        return names;
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
        webhook.routes().forEach((name, route) -> check.require(route.signature() != dev.herald.web.webhook.SignatureStyle.NONE,
                "webhook.routes." + name + ".signature", "is none while " + check.path("api_server.host") + " is " + apiServer.host()
                        + " (not a loopback address), so anyone who can reach the port could post to it; use github, gitlab or "
                        + "standard with a secret, or bind the host to 127.0.0.1"));
    }
}
