package dev.herald.platforms.matrix;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * Matrix as a plug-in: {@code platforms.matrix}, a {@code /sync} long poll whose token (and a password login's access
 * token) live in the store; it fetches its attachments from the homeserver's content repository itself.
 */
public final class MatrixPlugin implements PlatformPlugin<MatrixSettings> {
    @Override
    public String type() {
        return MatrixAdapter.PLATFORM.id();
    }

    @Override
    public Class<MatrixSettings> settingsType() {
        return MatrixSettings.class;
    }

    @Override
    public MatrixSettings defaults() {
        return MatrixSettings.defaults();
    }

    @Override
    public PlatformAdapter create(MatrixSettings settings, PlatformContext context) {
        MatrixAdapter adapter = new MatrixAdapter(settings, MatrixSettings.Timing.defaults(), context.clock(), context.state());
        adapter.useChannels(context.channels());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
