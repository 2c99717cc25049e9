package dev.herald.platforms.line;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * LINE (the Messaging API of a LINE Official Account) as a plug-in: {@code platforms.line}. It serves LINE's webhook at
 * {@code /platforms/line/webhook} on the API server's listener (so it needs {@code platforms.api_server.enabled}),
 * keeps each chat's latest reply token in the store's platform state and fetches message content itself.
 */
public final class LinePlugin implements PlatformPlugin<LineSettings> {
    @Override
    public String type() {
        return LineAdapter.PLATFORM.id();
    }

    @Override
    public Class<LineSettings> settingsType() {
        return LineSettings.class;
    }

    @Override
    public LineSettings defaults() {
        return LineSettings.defaults();
    }

    @Override
    public PlatformAdapter create(LineSettings settings, PlatformContext context) {
        return create(settings, LineSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its routes served and its media fetcher registered. */
    static LineAdapter create(LineSettings settings, LineSettings.Timing timing, PlatformContext context) {
        LineAdapter adapter = new LineAdapter(settings, timing, context.clock(), context.state());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
