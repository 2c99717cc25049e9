package dev.herald.platforms.whatsapp;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * WhatsApp Business (Meta's Cloud API) as a plug-in: {@code platforms.whatsapp}. It serves Meta's webhook at
 * {@code /platforms/whatsapp/webhook} on the API server's listener (so it needs {@code platforms.api_server.enabled}),
 * fetches its media itself and keeps each person's 24-hour window in the store's platform state.
 */
public final class WhatsAppPlugin implements PlatformPlugin<WhatsAppSettings> {
    @Override
    public String type() {
        return WhatsAppAdapter.PLATFORM.id();
    }

    @Override
    public Class<WhatsAppSettings> settingsType() {
        return WhatsAppSettings.class;
    }

    @Override
    public WhatsAppSettings defaults() {
        return WhatsAppSettings.defaults();
    }

    @Override
    public PlatformAdapter create(WhatsAppSettings settings, PlatformContext context) {
        return create(settings, WhatsAppSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its webhook served and its media fetcher registered. */
    static WhatsAppAdapter create(WhatsAppSettings settings, WhatsAppSettings.Timing timing, PlatformContext context) {
        WhatsAppAdapter adapter = new WhatsAppAdapter(settings, timing, context.clock(), context.state());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
