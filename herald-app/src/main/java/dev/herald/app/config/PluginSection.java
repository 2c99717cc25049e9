package dev.herald.app.config;

import dev.herald.core.config.PlatformAccess;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One plug-in's section of {@code platforms:}: the plug-in and its settings record as bound from
 * {@code platforms.<type>} (its defaults when the file has no such section), and the key every chat platform has
 * beside its plug-in's settings, {@code channels} (settings of single chats by chat id, see {@link ChannelConfig}).
 */
public record PluginSection(PlatformPlugin<?> plugin, Record settings, Map<String, ChannelConfig> channels) {
    public PluginSection {
        Objects.requireNonNull(plugin, "plugin");
        channels = channels == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(channels));
        if (!plugin.settingsType().isInstance(settings)) {
            throw new IllegalArgumentException(plugin.type() + " - settings must be a " + plugin.settingsType().getName() + ", were "
                    + (settings == null ? "null" : settings.getClass().getName()));
        }
    }

    /** A section without channels of its own. */
    public PluginSection(PlatformPlugin<?> plugin, Record settings) {
        this(plugin, settings, Map.of());
    }

    /**
     * Whether the plug-in's own settings have a key {@code channels} (IRC's and Mattermost's channels to join): there
     * the key is the plug-in's, and the platform has no settings for single chats.
     */
    public static boolean ownsChannelsKey(PlatformPlugin<?> plugin) {
        return java.util.Arrays.stream(plugin.settingsType().getRecordComponents()).anyMatch(c -> c.getName().equals("channels"));
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
