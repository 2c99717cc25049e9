package dev.herald.platforms.telegram;

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
import java.util.regex.Pattern;

/**
 * {@code platforms.telegram:} a Telegram bot made with @BotFather, reached through the Bot API by long
 * polling (no public address needed). Bound from the configuration, validated, then only read; the adapter's
 * time values, which are not configured, are its {@link Timing}.
 */
public record TelegramSettings(
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
        boolean streaming,
        @Doc("in groups, answer only messages that mention the bot (@username), reply to it, or are commands (private chats always)")
        boolean requireMention) implements PlatformAccess, Validated {

    /** The Bot API's root. */
    public static final String DEFAULT_API_BASE = "https://api.telegram.org";

    private static final Pattern TOKEN = Pattern.compile("\\d{3,}:[A-Za-z0-9_-]{10,}");

    /**
     * How the adapter paces itself; not configured.
     *
     * @param pollWait       how long one getUpdates long poll may be held open by the server
     * @param idlePollDelay  pause after an empty poll that came back early (servers that ignore long-poll timing)
     * @param editInterval   at most one edit per chat per this interval while streaming
     * @param reconnectFirst first delay after a failed poll; doubles up to {@code reconnectMax}, with jitter
     * @param reconnectMax   longest delay between reconnection attempts
     */
    public record Timing(Duration pollWait, Duration idlePollDelay, Duration editInterval, Duration reconnectFirst, Duration reconnectMax) {
        public Timing {
            Objects.requireNonNull(pollWait, "pollWait");
            Objects.requireNonNull(idlePollDelay, "idlePollDelay");
            Objects.requireNonNull(editInterval, "editInterval");
            Objects.requireNonNull(reconnectFirst, "reconnectFirst");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
        }

        /** 25 s long polls, 1 s edit throttle, reconnect from 1 s to 60 s. */
        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(25), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMinutes(1));
        }
    }

    public TelegramSettings {
        token = token == null ? Secret.NONE : token;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static TelegramSettings defaults() {
        return new TelegramSettings(false, Secret.NONE, DEFAULT_API_BASE, List.of(), false, List.of(), HomeChannelConfig.defaults(),
                UnauthorizedDm.PAIR, false, true);
    }

    /** Enabled settings for the bot {@code token} at {@code apiBase}, every other key at its default. */
    public static TelegramSettings of(String apiBase, String token, boolean streaming) {
        TelegramSettings d = defaults();
        return new TelegramSettings(true, Secret.of(token), apiBase, d.allowedUsers(), d.allowAllUsers(), d.admins(), d.homeChannel(),
                d.unauthorizedDm(), streaming, d.requireMention());
    }

    /** These settings with {@code require_mention} set to {@code required}. */
    public TelegramSettings withRequireMention(boolean required) {
        return new TelegramSettings(enabled, token, apiBase, allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm, streaming,
                required);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL such as " + DEFAULT_API_BASE
                + ", was \"" + apiBase + "\"");
        if (!enabled) {
            return;
        }
        check.require(token.isSet(), "token", "is required when " + check.path("enabled") + " is true; create a bot with @BotFather, "
                + "then set token: ${TELEGRAM_BOT_TOKEN} (or export TELEGRAM_BOT_TOKEN)");
        check.require(token.reveal().map(t -> TOKEN.matcher(t).matches()).orElse(false), "token",
                "does not look like a bot token (digits, a colon, then letters, digits, _ or -); copy it again from @BotFather");
    }

    /** The bot token, for the one client that sends it. */
    String tokenValue() {
        return token.reveal().orElseThrow(() -> new IllegalArgumentException("telegram - no bot token; set platforms.telegram.token"));
    }
}
