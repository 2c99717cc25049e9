package dev.herald.platforms.bluebubbles;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * iMessage through a BlueBubbles server on the user's Mac as a plug-in: {@code platforms.bluebubbles}. It serves the
 * server's webhook at {@code /platforms/bluebubbles/webhook} on the API server's listener (so it needs
 * {@code platforms.api_server.enabled}), sends through the server's REST API and fetches attachments from it.
 */
public final class BlueBubblesPlugin implements PlatformPlugin<BlueBubblesSettings> {
    @Override
    public String type() {
        return BlueBubblesAdapter.PLATFORM.id();
    }

    @Override
    public Class<BlueBubblesSettings> settingsType() {
        return BlueBubblesSettings.class;
    }

    @Override
    public BlueBubblesSettings defaults() {
        return BlueBubblesSettings.defaults();
    }

    @Override
    public PlatformAdapter create(BlueBubblesSettings settings, PlatformContext context) {
        return create(settings, BlueBubblesSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its webhook served and its media fetcher registered. */
    static BlueBubblesAdapter create(BlueBubblesSettings settings, BlueBubblesSettings.Timing timing, PlatformContext context) {
        BlueBubblesAdapter adapter = new BlueBubblesAdapter(settings, timing, context.clock());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
