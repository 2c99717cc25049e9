package dev.herald.platforms.telegram;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/** Telegram as a plug-in: {@code platforms.telegram}, a long-polling Bot API adapter that fetches its files itself. */
public final class TelegramPlugin implements PlatformPlugin<TelegramSettings> {
    @Override
    public String type() {
        return TelegramAdapter.PLATFORM.id();
    }

    @Override
    public Class<TelegramSettings> settingsType() {
        return TelegramSettings.class;
    }

    @Override
    public TelegramSettings defaults() {
        return TelegramSettings.defaults();
    }

    @Override
    public PlatformAdapter create(TelegramSettings settings, PlatformContext context) {
        TelegramAdapter adapter = new TelegramAdapter(settings, TelegramSettings.Timing.defaults(), context.clock());
        context.fetchMediaWith(adapter);
        adapter.useChannels(context.channels());
        return adapter;
    }
}
