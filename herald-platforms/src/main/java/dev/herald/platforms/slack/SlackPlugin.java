package dev.herald.platforms.slack;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/** Slack as a plug-in: {@code platforms.slack}, Socket Mode for events and the Web API for replies; it fetches its files itself. */
public final class SlackPlugin implements PlatformPlugin<SlackSettings> {
    @Override
    public String type() {
        return SlackAdapter.PLATFORM.id();
    }

    @Override
    public Class<SlackSettings> settingsType() {
        return SlackSettings.class;
    }

    @Override
    public SlackSettings defaults() {
        return SlackSettings.defaults();
    }

    @Override
    public PlatformAdapter create(SlackSettings settings, PlatformContext context) {
        SlackAdapter adapter = new SlackAdapter(settings, SlackSettings.Timing.defaults(), context.clock(), context.state());
        adapter.useChannels(context.channels());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
