package dev.herald.platforms.signal;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * Signal as a plug-in: {@code platforms.signal}, a signal-cli daemon's event stream for messages and its JSON-RPC
 * endpoint for replies; its place in the event stream lives in the store, and it fetches its attachments through the
 * daemon.
 */
public final class SignalPlugin implements PlatformPlugin<SignalSettings> {
    @Override
    public String type() {
        return SignalAdapter.PLATFORM.id();
    }

    @Override
    public Class<SignalSettings> settingsType() {
        return SignalSettings.class;
    }

    @Override
    public SignalSettings defaults() {
        return SignalSettings.defaults();
    }

    @Override
    public PlatformAdapter create(SignalSettings settings, PlatformContext context) {
        SignalAdapter adapter = new SignalAdapter(settings, SignalSettings.Timing.defaults(), context.clock(), context.state());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
