package dev.herald.platforms.dingtalk;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * A DingTalk (钉钉) robot as a plug-in: {@code platforms.dingtalk}. In Stream mode Herald opens the Stream connection
 * itself (no public address, no API server needed); in http mode it serves the robot's callback at
 * {@code /platforms/dingtalk/robot} on the API server's listener (so it needs {@code platforms.api_server.enabled}).
 * Either way it fetches members' files by their download codes.
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
        return create(settings, DingTalkSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its callback served in http mode and its media fetcher registered. */
    static DingTalkAdapter create(DingTalkSettings settings, DingTalkSettings.Timing timing, PlatformContext context) {
        DingTalkAdapter adapter = new DingTalkAdapter(settings, timing, context.clock());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
