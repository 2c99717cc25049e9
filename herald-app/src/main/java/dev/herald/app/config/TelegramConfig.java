package dev.herald.app.config;

import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.UnauthorizedDm;
import java.net.URI;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code platforms.telegram:} a Telegram bot made with @BotFather, reached through the Bot API by long
 * polling (no public address needed).
 */
public record TelegramConfig(
        @Doc("connect to Telegram")
        boolean enabled,
        @Doc("bot token from @BotFather (123456789:AA...); required when enabled")
        @EnvOverride({"TELEGRAM_BOT_TOKEN"})
        Secret token,
        @Doc("Bot API root; change it only for a self-hosted Bot API server")
        String apiBase,
        @Doc("Telegram user ids (numbers) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any Telegram user who finds the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm,
        @Doc("show replies while they are written, by editing one message (at most one edit per second)")
        boolean streaming) implements PlatformAccess, Validated {

    private static final Pattern TOKEN = Pattern.compile("\\d{3,}:[A-Za-z0-9_-]{10,}");

    public TelegramConfig {
        token = token == null ? Secret.NONE : token;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static TelegramConfig defaults() {
        return new TelegramConfig(false, Secret.NONE, "https://api.telegram.org", List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR, false);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(HttpBase.valid(apiBase), "api_base", "must be an http(s) URL such as https://api.telegram.org, was \"" + apiBase + "\"");
        if (!enabled) {
            return;
        }
        check.require(token.isSet(), "token", "is required when " + check.path("enabled") + " is true; create a bot with @BotFather, "
                + "then set token: ${TELEGRAM_BOT_TOKEN} (or export TELEGRAM_BOT_TOKEN)");
        check.require(token.reveal().map(t -> TOKEN.matcher(t).matches()).orElse(false), "token",
                "does not look like a bot token (digits, a colon, then letters, digits, _ or -); copy it again from @BotFather");
    }

    /** http(s) base URLs. */
    static final class HttpBase {
        private HttpBase() {
        }

        static boolean valid(String url) {
            try {
                URI u = URI.create(url);
                return ("https".equals(u.getScheme()) || "http".equals(u.getScheme())) && u.getHost() != null;
            } catch (IllegalArgumentException | NullPointerException e) {
                return false;
            }
        }
    }
}
