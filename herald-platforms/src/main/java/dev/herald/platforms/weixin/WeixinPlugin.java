package dev.herald.platforms.weixin;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * Weixin as a plug-in: {@code platforms.weixin}, a long-polling iLink adapter whose cursor and context tokens live in the
 * store (a {@code state.json} in its folder, left by an earlier version, is imported once).
 */
public final class WeixinPlugin implements PlatformPlugin<WeixinSettings> {
    @Override
    public String type() {
        return WeixinAdapter.PLATFORM.id();
    }

    @Override
    public Class<WeixinSettings> settingsType() {
        return WeixinSettings.class;
    }

    @Override
    public WeixinSettings defaults() {
        return WeixinSettings.defaults();
    }

    @Override
    public PlatformAdapter create(WeixinSettings settings, PlatformContext context) {
        WeixinAdapter adapter = new WeixinAdapter(settings, WeixinSettings.Timing.defaults(), context.folder().resolve("state.json"),
                context.clock(), context.state());
        context.fetchMediaWith(adapter.fetcher());
        return adapter;
    }
}
