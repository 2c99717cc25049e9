package dev.herald.platforms.irc;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/** IRC as a plug-in: {@code platforms.irc}, one client connection to an IRC server for messages in and replies out. */
public final class IrcPlugin implements PlatformPlugin<IrcSettings> {
    @Override
    public String type() {
        return IrcAdapter.PLATFORM.id();
    }

    @Override
    public Class<IrcSettings> settingsType() {
        return IrcSettings.class;
    }

    @Override
    public IrcSettings defaults() {
        return IrcSettings.defaults();
    }

    @Override
    public PlatformAdapter create(IrcSettings settings, PlatformContext context) {
        return new IrcAdapter(settings, IrcSettings.Timing.defaults(), context.clock());
    }
}
