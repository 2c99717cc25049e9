package dev.herald.platforms.homeassistant;

import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformState;
import dev.herald.core.platform.PlatformTools;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** What the Home Assistant tests share: short timing and a plug-in context whose offered tools the test reads. */
final class HomeAssistantHarness {
    private HomeAssistantHarness() {
    }

    /** Quick reconnection and short timeouts, so a dropped connection costs milliseconds. */
    static HomeAssistantSettings.Timing timing() {
        return new HomeAssistantSettings.Timing(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofMillis(20), Duration.ofMillis(200),
                Duration.ofSeconds(20), Duration.ofSeconds(12));
    }

    static PlatformContext context(PlatformTools tools) {
        PlatformState none = new PlatformState() {
            @Override
            public Optional<String> get(Platform platform, String name) {
                return Optional.empty();
            }

            @Override
            public Map<String, String> all(Platform platform) {
                return Map.of();
            }

            @Override
            public void put(Platform platform, Map<String, String> values) {
            }
        };
        return new PlatformContext(HomeAssistantAdapter.PLATFORM, Clock.systemUTC(), Path.of(System.getProperty("java.io.tmpdir")), none,
                new MediaFetchers(), null, tools);
    }
}
