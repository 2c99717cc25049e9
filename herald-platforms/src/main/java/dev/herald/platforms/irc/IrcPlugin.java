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

    /** A channel's id is its name with ASCII letters in lower case: {@code #Herald} and {@code #herald} are one channel. */
    @Override
    public String chatIdOfChannel(String key) {
        return IrcIds.fold(key.strip());
    }

    @Override
    public PlatformAdapter create(IrcSettings settings, PlatformContext context) {
        IrcAdapter adapter = new IrcAdapter(settings, IrcSettings.Timing.defaults(), context.clock());
        adapter.useChannels(context.channels());
        return adapter;
    }
}
