package dev.herald.platforms.feishu;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * A Feishu (飞书) or Lark app bot as a plug-in: {@code platforms.feishu}. It serves the open platform's event and card
 * callbacks at {@code /platforms/feishu/events} on the API server's listener (so it needs
 * {@code platforms.api_server.enabled}) and fetches members' files itself through the message resource API.
 */
public final class FeishuPlugin implements PlatformPlugin<FeishuSettings> {
    @Override
    public String type() {
        return FeishuAdapter.PLATFORM.id();
    }

    @Override
    public Class<FeishuSettings> settingsType() {
        return FeishuSettings.class;
    }

    @Override
    public FeishuSettings defaults() {
        return FeishuSettings.defaults();
    }

    @Override
    public PlatformAdapter create(FeishuSettings settings, PlatformContext context) {
        return create(settings, FeishuSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its callback served and its media fetcher registered. */
    static FeishuAdapter create(FeishuSettings settings, FeishuSettings.Timing timing, PlatformContext context) {
        FeishuAdapter adapter = new FeishuAdapter(settings, timing, context.clock(), context.state());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
