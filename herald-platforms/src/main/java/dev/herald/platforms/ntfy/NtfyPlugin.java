package dev.herald.platforms.ntfy;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * An ntfy topic as a plug-in: {@code platforms.ntfy}. It subscribes to the topic's JSON stream (no public address
 * needed), keeps its place in the store's platform state, and fetches attachments from the configured server itself.
 */
public final class NtfyPlugin implements PlatformPlugin<NtfySettings> {
    @Override
    public String type() {
        return NtfyAdapter.PLATFORM.id();
    }

    @Override
    public Class<NtfySettings> settingsType() {
        return NtfySettings.class;
    }

    @Override
    public NtfySettings defaults() {
        return NtfySettings.defaults();
    }

    @Override
    public PlatformAdapter create(NtfySettings settings, PlatformContext context) {
        return create(settings, NtfySettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its attachment fetcher registered. */
    static NtfyAdapter create(NtfySettings settings, NtfySettings.Timing timing, PlatformContext context) {
        NtfyAdapter adapter = new NtfyAdapter(settings, timing, context.clock(), context.state());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
