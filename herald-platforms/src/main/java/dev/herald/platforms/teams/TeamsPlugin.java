package dev.herald.platforms.teams;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * Microsoft Teams through the Bot Framework as a plug-in: {@code platforms.teams}. It serves the Bot Connector's calls at
 * {@code /platforms/teams/messages} on the API server's listener (so it needs {@code platforms.api_server.enabled}),
 * answers through the Connector REST API and fetches the attachments people send itself.
 */
public final class TeamsPlugin implements PlatformPlugin<TeamsSettings> {
    @Override
    public String type() {
        return TeamsAdapter.PLATFORM.id();
    }

    @Override
    public Class<TeamsSettings> settingsType() {
        return TeamsSettings.class;
    }

    @Override
    public TeamsSettings defaults() {
        return TeamsSettings.defaults();
    }

    @Override
    public PlatformAdapter create(TeamsSettings settings, PlatformContext context) {
        return create(settings, TeamsSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its webhook served and its media fetcher registered. */
    static TeamsAdapter create(TeamsSettings settings, TeamsSettings.Timing timing, PlatformContext context) {
        TeamsAdapter adapter = new TeamsAdapter(settings, timing, context.clock(), context.state());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
