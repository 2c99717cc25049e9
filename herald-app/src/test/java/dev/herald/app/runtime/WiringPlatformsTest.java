package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.HeraldConfig;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wiring builds the enabled chat platforms with their access rules and home channels. */
class WiringPlatformsTest {
    @TempDir
    Path home;

    @Test
    void enabledPlatforms_areRegistered_withConfiguredHomeChannelsAndAllowlists() throws Exception {
        Files.writeString(home.resolve("config.yaml"), """
                platforms:
                  api_server: {enabled: false}
                  telegram:
                    enabled: true
                    token: "123456789:AAH-secret_part_of_the_token"
                    allowed_users: ["111"]
                    home_channel: {chat_id: "-1001", thread_id: "7"}
                  weixin:
                    enabled: true
                    token: ilink-secret
                """);
        HeraldConfig config = new ConfigLoader(Map.of()).load(home.resolve("config.yaml"), true, home).config();

        try (Wiring w = Wiring.build(config, home, true, Clock.systemUTC())) {
            var registry = w.gateway().platforms();
            assertThat(registry.all()).extracting(a -> a.platform().id()).containsExactly("telegram", "weixin", "schedule", "background"); // schedule: the log delivery of scheduled jobs, always there; background: /bg tasks
            assertThat(registry.home(Platform.of("telegram"))).contains(
                    new HomeChannel(Platform.of("telegram"), new ChatTarget("-1001", "7"), null));
            assertThat(registry.adapter(Platform.of("telegram")).orElseThrow().capabilities().maxTextLength()).isEqualTo(4096);
        }
    }

    @Test
    void sethome_isKeptInHomeChannelsJson() {
        FileHomeChannelStore store = new FileHomeChannelStore(home.resolve("home_channels.json"));
        HomeChannel h = new HomeChannel(Platform.of("telegram"), new ChatTarget("-1001", "7"), "Ops");

        store.save(h);

        assertThat(new FileHomeChannelStore(home.resolve("home_channels.json")).load()).containsExactly(h);
    }
}
