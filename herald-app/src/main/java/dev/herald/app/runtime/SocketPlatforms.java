package dev.herald.app.runtime;

import dev.herald.app.config.DiscordConfig;
import dev.herald.app.config.SlackConfig;
import dev.herald.platforms.discord.DiscordAdapter;
import dev.herald.platforms.discord.DiscordSettings;
import dev.herald.platforms.slack.SlackAdapter;
import dev.herald.platforms.slack.SlackSettings;
import java.net.URI;
import java.time.Clock;

/** Builds the adapters of the chat platforms reached over a WebSocket (Discord, Slack) from their configuration sections. */
final class SocketPlatforms {
    private SocketPlatforms() {
    }

    /** Adds an adapter for every enabled one of them to {@code adapters}. */
    static DiscordAdapter discord(DiscordConfig d, Clock clock) {
        return new DiscordAdapter(new DiscordSettings(d.token().reveal().orElseThrow(), URI.create(d.apiBase().strip()),
                URI.create(d.gatewayUrl().strip()), d.requireMention(), d.allowBots(), DiscordSettings.Timing.defaults()), clock);
    }

    /** The Slack adapter for an enabled (hence validated: both tokens are set) section. */
    static SlackAdapter slack(SlackConfig s, Clock clock) {
        return new SlackAdapter(new SlackSettings(s.appToken().reveal().orElseThrow(), s.botToken().reveal().orElseThrow(),
                URI.create(s.apiBase().strip()), s.requireMention(), s.allowBots(), SlackSettings.Timing.defaults()), clock);
    }
}
