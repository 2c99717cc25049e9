package dev.herald.platforms.qqbot;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * QQ Bot as a plug-in: {@code platforms.qqbot}, the QQ open platform's WebSocket gateway for one-to-one and group
 * @-messages and its REST API for passive replies; the reply ledger lives in the store; it fetches its attachments itself.
 */
public final class QqBotPlugin implements PlatformPlugin<QqBotSettings> {
    @Override
    public String type() {
        return QqBotAdapter.PLATFORM.id();
    }

    @Override
    public Class<QqBotSettings> settingsType() {
        return QqBotSettings.class;
    }

    @Override
    public QqBotSettings defaults() {
        return QqBotSettings.defaults();
    }

    @Override
    public PlatformAdapter create(QqBotSettings settings, PlatformContext context) {
        QqBotAdapter adapter = new QqBotAdapter(settings, QqBotSettings.Timing.defaults(), context.state(), context.clock());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
