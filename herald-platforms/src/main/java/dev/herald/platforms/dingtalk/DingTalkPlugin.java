package dev.herald.platforms.dingtalk;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * A DingTalk (钉钉) robot in Stream mode as a plug-in: {@code platforms.dingtalk}. Herald opens the Stream connection
 * itself (no public address, no API server needed) and fetches members' files by their download codes.
 */
public final class DingTalkPlugin implements PlatformPlugin<DingTalkSettings> {
    @Override
    public String type() {
        return DingTalkAdapter.PLATFORM.id();
    }

    @Override
    public Class<DingTalkSettings> settingsType() {
        return DingTalkSettings.class;
    }

    @Override
    public DingTalkSettings defaults() {
        return DingTalkSettings.defaults();
    }

    @Override
    public PlatformAdapter create(DingTalkSettings settings, PlatformContext context) {
        DingTalkAdapter adapter = new DingTalkAdapter(settings, DingTalkSettings.Timing.defaults(), context.clock());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
