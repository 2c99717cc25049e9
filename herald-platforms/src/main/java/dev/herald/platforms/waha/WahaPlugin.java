package dev.herald.platforms.waha;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * WhatsApp on a personal number through a self-hosted WAHA bridge as a plug-in: {@code platforms.waha}. It serves WAHA's
 * webhook at {@code /platforms/waha/webhook} on the API server's listener (so it needs
 * {@code platforms.api_server.enabled}), sends through WAHA's HTTP API and fetches the files WAHA stored.
 */
public final class WahaPlugin implements PlatformPlugin<WahaSettings> {
    @Override
    public String type() {
        return WahaAdapter.PLATFORM.id();
    }

    @Override
    public Class<WahaSettings> settingsType() {
        return WahaSettings.class;
    }

    @Override
    public WahaSettings defaults() {
        return WahaSettings.defaults();
    }

    @Override
    public PlatformAdapter create(WahaSettings settings, PlatformContext context) {
        return create(settings, WahaSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its webhook served and its media fetcher registered. */
    static WahaAdapter create(WahaSettings settings, WahaSettings.Timing timing, PlatformContext context) {
        WahaAdapter adapter = new WahaAdapter(settings, timing, context.clock());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
