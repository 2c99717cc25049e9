package dev.herald.platforms.discord;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/** Discord as a plug-in: {@code platforms.discord}, the Gateway WebSocket for events and REST for replies; it fetches its attachments itself. */
public final class DiscordPlugin implements PlatformPlugin<DiscordSettings> {
    @Override
    public String type() {
        return DiscordAdapter.PLATFORM.id();
    }

    @Override
    public Class<DiscordSettings> settingsType() {
        return DiscordSettings.class;
    }

    @Override
    public DiscordSettings defaults() {
        return DiscordSettings.defaults();
    }

    @Override
    public PlatformAdapter create(DiscordSettings settings, PlatformContext context) {
        DiscordAdapter adapter = new DiscordAdapter(settings, DiscordSettings.Timing.defaults(), context.clock(), context.state());
        adapter.useChannels(context.channels());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
