package dev.herald.platforms.sms;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * SMS and MMS through Twilio as a plug-in: {@code platforms.sms}. It serves Twilio's webhook at
 * {@code /platforms/sms/webhook} on the API server's listener (so it needs {@code platforms.api_server.enabled}), and,
 * with {@code public_url}, the agent's files at {@code /platforms/sms/files/...} for Twilio to fetch; it fetches MMS
 * media itself and keeps opt-outs (STOP) in the store's platform state.
 */
public final class SmsPlugin implements PlatformPlugin<SmsSettings> {
    @Override
    public String type() {
        return SmsAdapter.PLATFORM.id();
    }

    @Override
    public Class<SmsSettings> settingsType() {
        return SmsSettings.class;
    }

    @Override
    public SmsSettings defaults() {
        return SmsSettings.defaults();
    }

    @Override
    public PlatformAdapter create(SmsSettings settings, PlatformContext context) {
        return create(settings, SmsSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its routes served and its media fetcher registered. */
    static SmsAdapter create(SmsSettings settings, SmsSettings.Timing timing, PlatformContext context) {
        SmsAdapter adapter = new SmsAdapter(settings, timing, context.clock(), context.state());
        adapter.serveOn(context.http());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
