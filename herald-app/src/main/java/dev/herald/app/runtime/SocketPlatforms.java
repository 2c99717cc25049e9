package dev.herald.app.runtime;

import dev.herald.app.config.DiscordConfig;
import dev.herald.app.config.PlatformsConfig;
import dev.herald.app.config.SlackConfig;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.platforms.discord.DiscordAdapter;
import dev.herald.platforms.discord.DiscordSettings;
import dev.herald.platforms.slack.SlackAdapter;
import dev.herald.platforms.slack.SlackSettings;
import java.net.URI;
import java.time.Clock;
import java.util.List;

/** Builds the adapters of the chat platforms reached over a WebSocket (Discord, Slack) from their configuration sections. */
final class SocketPlatforms {
    private SocketPlatforms() {
    }

    /** Adds an adapter for every enabled chat platform to {@code adapters}. */
    static void add(PlatformsConfig platforms, Clock clock, List<PlatformAdapter> adapters) {
        DiscordConfig d = platforms.discord();
        if (d.enabled()) {
            adapters.add(new DiscordAdapter(new DiscordSettings(d.token().reveal().orElseThrow(), URI.create(d.apiBase().strip()),
                    URI.create(d.gatewayUrl().strip()), d.requireMention(), d.allowBots(), DiscordSettings.Timing.defaults()), clock));
        }
        SlackConfig s = platforms.slack();
        if (s.enabled()) {
            adapters.add(new SlackAdapter(new SlackSettings(s.appToken().reveal().orElseThrow(), s.botToken().reveal().orElseThrow(),
                    URI.create(s.apiBase().strip()), s.requireMention(), s.allowBots(), SlackSettings.Timing.defaults()), clock));
        }
    }
}
