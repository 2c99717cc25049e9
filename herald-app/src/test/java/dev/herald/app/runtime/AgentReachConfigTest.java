package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.config.ConfigException;
import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.HeraldConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code agent.platform_tools.webhook} is empty unless configured; {@code agent.http_allow} reaches http_get or fails at load. */
class AgentReachConfigTest {
    @TempDir
    Path home;

    private HeraldConfig load(String yaml) throws Exception {
        Path file = Files.writeString(home.resolve("config.yaml"), yaml);
        return new ConfigLoader(Map.of()).load(file, false, home).config();
    }

    private ToolSettings tools(String yaml) throws Exception {
        return load(yaml).agent().resolvedIn(home).toolSettings();
    }

    @Test
    void defaults_webhookTurnsGetNoToolsWhileOtherPlatformsGetAgentTools() throws Exception {
        ToolSettings settings = tools("");

        assertThat(settings.toolsFor("webhook")).isEmpty();
        assertThat(settings.toolsFor("telegram")).contains("shell", "http_get");
        assertThat(settings.httpAllow()).isEmpty();
    }

    @Test
    void platformToolsForAnotherPlatform_leaveWebhooksWithoutTools() throws Exception {
        ToolSettings settings = tools("agent:\n  platform_tools:\n    api_server: [read_file]\n");

        assertThat(settings.toolsFor("api_server")).containsExactly("read_file");
        assertThat(settings.toolsFor("webhook")).isEmpty();
    }

    @Test
    void webhookToolsConfigured_areWhatWebhookTurnsGet() throws Exception {
        assertThat(tools("agent:\n  platform_tools:\n    webhook: [http_get]\n").toolsFor("webhook")).containsExactly("http_get");
    }

    @Test
    void httpAllow_reachesTheToolSettings() throws Exception {
        assertThat(tools("agent:\n  http_allow: [intranet.example, 127.0.0.5/32, \"fd00::/8\"]\n").httpAllow())
                .isEqualTo(List.of("intranet.example", "127.0.0.5/32", "fd00::/8"));
    }

    @Test
    void httpAllow_badEntry_isAConfigurationErrorNamingTheLineAndTheEntry() {
        assertThatThrownBy(() -> load("agent:\n  http_allow:\n    - 10.0.0.0/33\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("line 2: agent.http_allow has a bad entry: '10.0.0.0/33' is not a CIDR block");
    }
}
