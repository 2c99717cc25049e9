package dev.herald.platforms.googlechat;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * Google Chat (an app on an HTTP endpoint) as a plug-in: {@code platforms.google_chat}. It serves Google Chat's event
 * calls at {@code /platforms/google_chat/events} on the API server's listener (so it needs
 * {@code platforms.api_server.enabled}), answers through the Chat API and fetches attachments through its media API.
 */
public final class GoogleChatPlugin implements PlatformPlugin<GoogleChatSettings> {
    @Override
    public String type() {
        return GoogleChatAdapter.PLATFORM.id();
    }

    @Override
    public Class<GoogleChatSettings> settingsType() {
        return GoogleChatSettings.class;
    }

    @Override
    public GoogleChatSettings defaults() {
        return GoogleChatSettings.defaults();
    }

    @Override
    public PlatformAdapter create(GoogleChatSettings settings, PlatformContext context) {
        return create(settings, GoogleChatSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its route served and its media fetcher registered. */
    static GoogleChatAdapter create(GoogleChatSettings settings, GoogleChatSettings.Timing timing, PlatformContext context) {
        GoogleChatAdapter adapter = new GoogleChatAdapter(settings, timing, context.clock());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
