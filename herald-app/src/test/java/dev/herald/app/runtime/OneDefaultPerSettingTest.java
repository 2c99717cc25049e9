package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.mcp.McpServerSettings;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.app.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import dev.herald.core.gateway.GatewayConfig;
import dev.herald.app.config.HeraldConfig;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.web.api.ApiServerPlatform;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A setting has one default, the component's own: a configuration section's defaults() reads it, so an empty
 * config.yaml wires exactly what the components would choose by themselves.
 */
class OneDefaultPerSettingTest {
    @TempDir
    Path home;

    private HeraldConfig load(String yaml) throws Exception {
        Path file = Files.writeString(home.resolve("config.yaml"), yaml);
        return new ConfigLoader(Map.of()).load(file, false, home).config();
    }

    /** What the file's checks accept, the components take: a value at the edge loads and then builds, not fails at start. */
    @Test
    void theAgentSection_atTheLowestValuesItsChecksAccept_buildsTheTools() throws Exception {
        HeraldConfig config = load("""
                agent:
                  tool_result_limit: 1000
                  http_max_bytes: 1024
                  shell_timeout_seconds: 1
                  http_timeout_seconds: 1
                  file_max_bytes: 1024
                  workspace_max_bytes: 1024
                """);

        ToolSettings tools = config.agent().toolSettings();

        assertThat(tools.resultLimit()).isEqualTo(ToolSettings.MIN_RESULT_LIMIT);
        assertThat(tools.httpMaxBytes()).isEqualTo(1024);
        assertThat(tools.fileLimits().maxFileBytes()).isEqualTo(1024);
    }

    @Test
    void anMcpEntry_isBoundIntoTheServersOwnSettings_withItsSecretsRevealedOnlyOnAsking() throws Exception {
        HeraldConfig config = load("""
                mcp_servers:
                  - name: files
                    url: http://127.0.0.1:9/mcp
                    headers: {Authorization: Bearer s3cret-token}
                """);

        McpServerSettings files = config.mcpServers().getFirst().checked();

        assertThat(files.timeout()).isEqualTo(McpServerSettings.DEFAULT_TIMEOUT);
        assertThat(files.revealedHeaders()).containsEntry("Authorization", "Bearer s3cret-token");
        assertThat(files.toString()).doesNotContain("s3cret");
    }

    @Test
    void theGatewaySection_wiredFromItsDefaults_isTheGatewaysOwnDefaults() {
        GatewaySettings wired = GatewayConfig.defaults().settings();

        assertThat(wired).isEqualTo(GatewaySettings.defaults());
    }

    @Test
    void theAgentSection_wiredFromItsDefaults_asksForApprovalAsLongAsTheGatewayWaits() {
        HeraldConfig defaults = HeraldConfig.defaults();

        assertThat(defaults.gateway().settings().approvalTimeout().toSeconds())
                .isEqualTo(defaults.agent().approvalTimeoutSeconds());
    }

    @Test
    void theImageCap_byDefault_isTheSameForTheModelSectionTheAgentAndTheApi() {
        long configured = HeraldConfig.defaults().model().maxImageBytes();

        assertThat(configured).isEqualTo(5L * 1024 * 1024);
        assertThat(AgentSettings.DEFAULT.maxImageBytes()).isEqualTo(configured);
        assertThat(new ApiServerPlatform.Settings("127.0.0.1", 0, null, 1024, Duration.ofSeconds(1), "herald").maxImageBytes())
                .isEqualTo(configured);
    }
}
