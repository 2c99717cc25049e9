package dev.herald.platforms.xmpp;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/** XMPP as a plug-in: {@code platforms.xmpp}, one client-to-server connection for one-to-one chats and rooms. */
public final class XmppPlugin implements PlatformPlugin<XmppSettings> {
    @Override
    public String type() {
        return XmppAdapter.PLATFORM.id();
    }

    @Override
    public Class<XmppSettings> settingsType() {
        return XmppSettings.class;
    }

    @Override
    public XmppSettings defaults() {
        return XmppSettings.defaults();
    }

    @Override
    public PlatformAdapter create(XmppSettings settings, PlatformContext context) {
        XmppAdapter adapter = new XmppAdapter(settings, XmppSettings.Timing.defaults(), context.clock());
        context.fetchMediaWith(adapter.fetcher());
        return adapter;
    }
}
