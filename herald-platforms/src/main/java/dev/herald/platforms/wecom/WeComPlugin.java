package dev.herald.platforms.wecom;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * A WeCom (企业微信) self-built app as a plug-in: {@code platforms.wecom}. It serves WeCom's callback at
 * {@code /platforms/wecom/callback} on the API server's listener (so it needs {@code platforms.api_server.enabled}) and
 * fetches members' media itself through {@code media/get}.
 */
public final class WeComPlugin implements PlatformPlugin<WeComSettings> {
    @Override
    public String type() {
        return WeComAdapter.PLATFORM.id();
    }

    @Override
    public Class<WeComSettings> settingsType() {
        return WeComSettings.class;
    }

    @Override
    public WeComSettings defaults() {
        return WeComSettings.defaults();
    }

    @Override
    public PlatformAdapter create(WeComSettings settings, PlatformContext context) {
        return create(settings, WeComSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its callback served and its media fetcher registered. */
    static WeComAdapter create(WeComSettings settings, WeComSettings.Timing timing, PlatformContext context) {
        WeComAdapter adapter = new WeComAdapter(settings, timing, context.clock(), context.state());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
