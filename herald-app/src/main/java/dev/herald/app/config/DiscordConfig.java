package dev.herald.app.config;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.UnauthorizedDm;
import java.util.List;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * {@code platforms.discord:} a Discord bot over the Gateway WebSocket and REST. Needs a bot token and, in
 * the developer portal, the privileged MESSAGE CONTENT intent. Who may talk to the agent is set by the
 * shared access keys of every platform.
 */
public record DiscordConfig(
        @Doc("connect to Discord as a bot")
        boolean enabled,
        @Doc("bot token (Developer Portal > your application > Bot > Reset Token); required when enabled")
        Secret token,
        @Doc("REST API base, including the version; change only for a proxy or tests")
        String apiBase,
        @Doc("Gateway WebSocket URL (?v=10&encoding=json is added); change only for a proxy or tests")
        String gatewayUrl,
        @Doc("in server channels, only messages that mention the bot start a turn (threads and DMs always do)")
        boolean requireMention,
        @Doc("messages from other bots and webhooks start turns too (the bot's own never do)")
        boolean allowBots,
        @Doc("Discord user ids (snowflakes) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any Discord user who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public DiscordConfig {
        token = token == null ? Secret.NONE : token;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static DiscordConfig defaults() {
        return new DiscordConfig(false, Secret.NONE, "https://discord.com/api/v10", "wss://gateway.discord.gg", true, false,
                List.of(), false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || token.isSet(), "token", "is required when " + check.path("enabled") + " is true: create a bot "
                + "at https://discord.com/developers/applications and set token: ${DISCORD_BOT_TOKEN}");
        check.require(isUrl(apiBase, "http", "https"), "api_base", "must be an http(s) URL, was \"" + apiBase + "\"");
        check.require(isUrl(gatewayUrl, "ws", "wss"), "gateway_url", "must be a ws(s) URL, was \"" + gatewayUrl + "\"");
    }

    static boolean isUrl(String text, String... schemes) {
        if (text == null || text.isBlank()) {
            return false;
        }
        try {
            URI uri = new URI(text.strip());
            return uri.getHost() != null && java.util.List.of(schemes).contains(String.valueOf(uri.getScheme()).toLowerCase(java.util.Locale.ROOT));
        } catch (URISyntaxException e) {
            return false;
        }
    }
}
