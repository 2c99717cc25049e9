package dev.herald.app.runtime;

import dev.herald.app.config.PlatformsConfig;
import dev.herald.app.config.PluginSection;
import dev.herald.core.config.ConfigException;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformState;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the adapter of every chat platform plug-in that {@code platforms.<type>} enables, each with its access keys. */
final class ChatPlatforms {
    private static final Logger log = LoggerFactory.getLogger("runtime");

    private ChatPlatforms() {
    }

    /**
     * Adds the enabled plug-ins' adapters to {@code set}, each made by its plug-in with the store's platform state and a
     * place to register its media fetcher.
     *
     * @throws ConfigException when a plug-in refuses its settings
     */
    static void add(PlatformsConfig config, Path home, Clock clock, PlatformSet set, PlatformState state, MediaFetchers fetchers) {
        add(config, home, clock, set, state, fetchers, java.util.Optional.empty(), new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                new dev.herald.core.platform.PlatformTools());
    }

    /**
     * @param web      the API server's listener, where plug-ins serve their webhooks ({@code /platforms/<type>/}); empty when off
     * @param registry where the webhook routes count their answers
     * @param tools    where plug-ins offer the agent their tools
     */
    static void add(PlatformsConfig config, Path home, Clock clock, PlatformSet set, PlatformState state, MediaFetchers fetchers,
            java.util.Optional<dev.herald.web.WebServer> web, io.micrometer.core.instrument.MeterRegistry registry,
            dev.herald.core.platform.PlatformTools tools) {
        for (PluginSection section : config.chat().values()) {
            PlatformAccess access = section.access();
            if (!access.enabled()) {
                continue;
            }
            Platform platform = Platform.of(section.type());
            PlatformAdapter adapter;
            try {
                adapter = section.create(new PlatformContext(platform, clock, home, state, fetchers,
                        web.map(w -> (dev.herald.core.platform.InboundHttp) new dev.herald.web.PlatformRoutes(platform, w, registry)).orElse(null), tools)
                        .withChannels(dev.herald.app.config.ChannelConfig.overrides(config)));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("config - platforms." + platform + ": " + e.getMessage(), e);
            }
            if (!platform.equals(adapter.platform())) {
                adapter.close();
                throw new IllegalStateException("plugins - the " + platform + " plug-in (" + section.plugin().getClass().getName()
                        + ") made an adapter for platform " + adapter.platform() + "; a plug-in's adapter must be its own type's");
            }
            set.chat(adapter, access);
            log.info("runtime - {} enabled ({} allowed user(s), allow_all_users {}, unknown DMs: {})", platform, access.allowedUsers().size(),
                    access.allowAllUsers(), access.unauthorizedDm().name().toLowerCase(Locale.ROOT));
        }
    }
}
