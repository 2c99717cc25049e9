package dev.herald.agent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.tool.Tool;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /reload-mcp} against real stdio MCP server processes ({@code src/test/resources/mcp/test_server.py}): the servers
 * of the configuration as read now replace those running, the answer names who came up and who failed, and a
 * configuration that cannot be read changes nothing.
 */
class McpReloadTest {
    @TempDir
    Path state;

    private McpTools mcp;

    @AfterEach
    void stop() {
        if (mcp != null) {
            mcp.close();
        }
    }

    private static String run(ReloadMcpCommand command) {
        MessageEvent event = MessageEvent.text(dev.herald.core.session.SessionSource.dm(dev.herald.core.platform.Platform.of("loopback"), "1",
                "1"), "/reload-mcp", "m-1", java.time.Instant.now());
        return command.handle(event, new SessionKey("agent:main:loopback:dm:1"), true);
    }

    @Test
    void reload_replacesTheServers_namesThoseUpWithTheirToolsAndThoseThatFailed_withoutSecrets() {
        mcp = new McpTools(List.of(), McpToolsTest.TEST_BACKOFF).start();
        assertThat(mcp.tools()).isEmpty();
        List<McpServerSettings> config = new ArrayList<>();
        ReloadMcpCommand command = new ReloadMcpCommand(mcp, () -> List.copyOf(config));
        config.add(McpToolsTest.server(state).withAllowedTools(List.of("echo", "add")));
        config.add(McpServerSettings.stdio("broken", state.resolve("missing-server").toString(), List.of())
                .withEnv(Map.of("TOKEN", McpToolsTest.SECRET)).withTimeout(Duration.ofSeconds(2)));

        String answer = run(command);

        assertThat(answer).isEqualTo("\u267b\ufe0f MCP servers reloaded.\nUp: test (2 tools)\n"
                + "Failed: broken (retried in the background; the log says why)");
        assertThat(answer).doesNotContain(McpToolsTest.SECRET).doesNotContain("missing-server");
        assertThat(mcp.tools()).extracting(Tool::name).containsExactly("test__echo", "test__add");

        config.removeLast();
        config.set(0, McpToolsTest.server(state).withAllowedTools(List.of("echo")));
        assertThat(run(command)).isEqualTo("\u267b\ufe0f MCP servers reloaded.\nUp: test (1 tool)");
        assertThat(mcp.tools()).extracting(Tool::name).containsExactly("test__echo");
        assertThat(mcp.status()).extracting(McpTools.ServerStatus::name).containsExactly("test");
    }

    @Test
    void reload_whenTheConfigurationCannotBeRead_keepsTheServersRunning() {
        mcp = new McpTools(List.of(McpToolsTest.server(state).withAllowedTools(List.of("echo"))), McpToolsTest.TEST_BACKOFF).start();
        ReloadMcpCommand command = new ReloadMcpCommand(mcp, () -> {
            throw new IllegalStateException("config.yaml line 12: mcp_servers[0].command must be set\nmore detail");
        });

        assertThat(run(command)).isEqualTo("The configuration could not be read, so the MCP servers keep running as they were: "
                + "config.yaml line 12: mcp_servers[0].command must be set");
        assertThat(mcp.tools()).extracting(Tool::name).containsExactly("test__echo");

        ReloadMcpCommand twice = new ReloadMcpCommand(mcp, () -> List.of(McpToolsTest.server(state), McpToolsTest.server(state)));
        assertThat(run(twice)).isEqualTo("The MCP servers keep running as they were: mcp_servers: two servers are named 'test'");
        assertThat(mcp.status()).containsExactly(new McpTools.ServerStatus("test", "READY", 1, 0));
    }
}
