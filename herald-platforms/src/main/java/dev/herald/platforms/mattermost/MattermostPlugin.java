package dev.herald.platforms.mattermost;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * Mattermost as a plug-in: {@code platforms.mattermost}, the WebSocket API for new posts and REST v4 for replies, files
 * and catch-up; its catch-up cursors live in the store's platform state, and it fetches its files itself.
 */
public final class MattermostPlugin implements PlatformPlugin<MattermostSettings> {
    @Override
    public String type() {
        return MattermostAdapter.PLATFORM.id();
    }

    @Override
    public Class<MattermostSettings> settingsType() {
        return MattermostSettings.class;
    }

    @Override
    public MattermostSettings defaults() {
        return MattermostSettings.defaults();
    }

    /**
     * Settings meet a channel by its id (26 lower-case letters and digits); a name under {@code channels} only says where
     * the bot answers, since a post names its channel by id.
     */
    @Override
    public String chatIdOfChannel(String key) {
        String id = key.strip();
        if (!id.matches("[a-z0-9]{26}")) {
            throw new IllegalArgumentException("is not a channel id: settings for one channel need its id (26 lower-case letters and"
                    + " digits, shown under the channel's View Info); a channel name only says where the bot answers");
        }
        return id;
    }

    @Override
    public PlatformAdapter create(MattermostSettings settings, PlatformContext context) {
        MattermostAdapter adapter = new MattermostAdapter(settings, MattermostSettings.Timing.defaults(), context.clock(), context.state());
        adapter.useChannels(context.channels());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
