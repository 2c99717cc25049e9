package dev.herald.app.config;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.UnauthorizedDm;
import java.util.List;

/**
 * {@code platforms.slack:} a Slack app over Socket Mode (events) and the Web API (replies). Needs an
 * app-level token ({@code xapp-}, scope connections:write) and a bot token ({@code xoxb-}). Who may talk to
 * the agent is set by the shared access keys of every platform.
 */
public record SlackConfig(
        @Doc("connect to Slack over Socket Mode")
        boolean enabled,
        @Doc("app-level token, xapp-... (Basic Information > App-Level Tokens, scope connections:write); required when enabled")
        Secret appToken,
        @Doc("bot token, xoxb-... (OAuth & Permissions > Bot User OAuth Token); required when enabled")
        Secret botToken,
        @Doc("Web API base; change only for a proxy or tests")
        String apiBase,
        @Doc("in channels, only top-level messages that mention the bot start a turn (threads and DMs always do)")
        boolean requireMention,
        @Doc("messages from other bots start turns too (the bot's own never do)")
        boolean allowBots,
        @Doc("Slack member ids (U...) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any Slack user who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public SlackConfig {
        appToken = appToken == null ? Secret.NONE : appToken;
        botToken = botToken == null ? Secret.NONE : botToken;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static SlackConfig defaults() {
        return new SlackConfig(false, Secret.NONE, Secret.NONE, "https://slack.com/api", true, false,
                List.of(), false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || appToken.isSet(), "app_token", "is required when " + check.path("enabled")
                + " is true: an app-level token (xapp-...) with the connections:write scope");
        check.require(!enabled || botToken.isSet(), "bot_token", "is required when " + check.path("enabled")
                + " is true: the bot token (xoxb-...)");
        check.require(!appToken.isSet() || appToken.reveal().orElse("").startsWith("xapp-"), "app_token",
                "must be an app-level token starting with xapp- (a bot token starts with xoxb-)");
        check.require(!botToken.isSet() || botToken.reveal().orElse("").startsWith("xoxb-"), "bot_token",
                "must be a bot token starting with xoxb-");
        check.require(DiscordConfig.isUrl(apiBase, "http", "https"), "api_base", "must be an http(s) URL, was \"" + apiBase + "\"");
    }
}
