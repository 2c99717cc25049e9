package dev.herald.agent.mcp;

import dev.herald.core.retry.Backoff;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolResult;
import dev.herald.core.agent.Interrupt;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MCP over streamable HTTP against a real server process ({@code src/test/resources/mcp/test_http_server.py}). */
class McpHttpTest {
    @TempDir
    Path dir;

    private Process server;
    private String url;
    private McpTools mcp;

    @BeforeEach
    void startServer() throws Exception {
        Path script = Path.of(getClass().getResource("/mcp/test_http_server.py").toURI());
        Path portFile = dir.resolve("port");
        server = new ProcessBuilder("/usr/bin/python3", script.toString(), portFile.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        String port = await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(portFile) ? Files.readString(portFile).strip() : "",
                p -> !p.isEmpty());
        url = "http://127.0.0.1:" + port + "/mcp";
    }

    @AfterEach
    void stop() {
        if (mcp != null) {
            mcp.close();
        }
        server.destroyForcibly();
    }

    private ToolResult call(String name, String json) throws Exception {
        Tool tool = mcp.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
        return tool.execute(Args.JSON.readTree(json), new ToolContext("s", "scope", "p", dir, new Interrupt()));
    }

    @Test
    void http_serverWithHeaders_listsAndCallsToolsSendingTheConfiguredHeader() throws Exception {
        mcp = new McpTools(List.of(McpServerSettings.http("remote", url).withHeaders(Map.of("Authorization", "Bearer http-test-token"))
                .withTimeout(Duration.ofSeconds(5)))).start();

        assertThat(mcp.tools()).extracting(Tool::name).containsExactly("remote__echo", "remote__whoami");
        assertThat(call("remote__echo", "{\"text\":\"over http\"}")).isEqualTo(ToolResult.ok("echo: over http"));
        assertThat(call("remote__whoami", "{}")).isEqualTo(ToolResult.ok("authorized"));
        assertThat(McpServerSettings.http("remote", url).withHeaders(Map.of("Authorization", "Bearer http-test-token")).toString())
                .doesNotContain("http-test-token");
    }

    @Test
    void http_serverGone_callFailsClearlyAndTheServerIsReconnecting() throws Exception {
        mcp = new McpTools(List.of(McpServerSettings.http("remote", url).withTimeout(Duration.ofSeconds(3))),
                Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(2))).start();
        server.destroyForcibly().waitFor();

        ToolResult result = call("remote__echo", "{\"text\":\"anyone?\"}");

        assertThat(result.ok()).isFalse();
        assertThat(result.text()).startsWith("Error: mcp - server 'remote' failed during 'echo' (").endsWith("it is being reconnected");
        assertThat(mcp.status().get(0).state()).isIn("RESTARTING", "CONNECTING");
    }
}
