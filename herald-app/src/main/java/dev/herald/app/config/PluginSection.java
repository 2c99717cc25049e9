package dev.herald.app.config;

import dev.herald.core.config.PlatformAccess;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;
import java.util.Objects;

/**
 * One plug-in's section of {@code platforms:}: the plug-in and its settings record as bound from
 * {@code platforms.<type>} (its defaults when the file has no such section).
 */
public record PluginSection(PlatformPlugin<?> plugin, Record settings) {
    public PluginSection {
        Objects.requireNonNull(plugin, "plugin");
        if (!plugin.settingsType().isInstance(settings)) {
            throw new IllegalArgumentException(plugin.type() + " - settings must be a " + plugin.settingsType().getName() + ", were "
                    + (settings == null ? "null" : settings.getClass().getName()));
        }
    }

    /** The plug-in's section at its defaults. */
    public static PluginSection defaults(PlatformPlugin<?> plugin) {
        return new PluginSection(plugin, plugin.defaults());
    }

    public String type() {
        return plugin.type();
    }

    /** The access keys every platform shares. */
    public PlatformAccess access() {
        return (PlatformAccess) settings;
    }

    /** The plug-in's adapter for these (enabled, validated) settings. */
    public PlatformAdapter create(PlatformContext context) {
        return create(plugin, context);
    }

    private <S extends Record & PlatformAccess> PlatformAdapter create(PlatformPlugin<S> p, PlatformContext context) {
        return p.create(p.settingsType().cast(settings), context);
    }
}
