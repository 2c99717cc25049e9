package dev.herald.agent.mcp;

import dev.herald.core.retry.Backoff;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** MCP tools against a real stdio server process ({@code src/test/resources/mcp/test_server.py}) started by the test. */
class McpToolsTest {
    static final String SECRET = "s3cr3t-value-never-logged";
    static final Backoff TEST_BACKOFF = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(4));

    @TempDir
    Path state;
    @TempDir
    Path workspace;

    private McpTools mcp;

    @AfterEach
    void stop() {
        if (mcp != null) {
            mcp.close();
        }
    }

    static McpServerSettings server(Path state) {
        try {
            Path script = Path.of(McpToolsTest.class.getResource("/mcp/test_server.py").toURI());
            return McpServerSettings.stdio("test", "/usr/bin/python3", List.of(script.toString(), state.toString()))
                    .withEnv(Map.of("HERALD_TEST_SECRET", SECRET)).withTimeout(Duration.ofSeconds(5));
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private McpTools start(McpServerSettings settings) {
        mcp = new McpTools(List.of(settings), TEST_BACKOFF).start();
        return mcp;
    }

    private ToolResult call(String name, String argsJson, Interrupt interrupt) throws Exception {
        Tool tool = mcp.tools().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no tool " + name + " in " + mcp.tools().stream().map(Tool::name).toList()));
        JsonNode args = Args.JSON.readTree(argsJson);
        return tool.execute(args, new ToolContext("s-1", "scope", "loopback", workspace, interrupt));
    }

    private List<Long> pids() throws Exception {
        Path file = state.resolve("pids");
        return Files.exists(file) ? Files.readAllLines(file).stream().filter(l -> !l.isBlank()).map(Long::parseLong).toList() : List.of();
    }

    @Test
    void start_listsTheServersToolsUnderItsName() {
        start(server(state));

        assertThat(mcp.tools()).extracting(Tool::name)
                .containsExactly("test__echo", "test__add", "test__slow", "test__fail", "test__secret_env");
        assertThat(mcp.status()).containsExactly(new McpTools.ServerStatus("test", "READY", 5, 0));
        assertThat(mcp.tools().get(1).parameters().path("required")).extracting(JsonNode::asText).containsExactly("a", "b");
    }

    @Test
    void call_runsTheToolInTheServerProcessAndReturnsItsText() throws Exception {
        start(server(state));

        assertThat(call("test__add", "{\"a\":2,\"b\":3}", new Interrupt())).isEqualTo(ToolResult.ok("5"));
        assertThat(call("test__echo", "{\"text\":\"hi\"}", new Interrupt())).isEqualTo(ToolResult.ok("echo: hi"));
    }

    @Test
    void call_toolReportingAnError_isAnErrorResult() throws Exception {
        start(server(state));

        assertThat(call("test__fail", "{}", new Interrupt()))
                .isEqualTo(ToolResult.error("'test__fail' reported an error: this tool always fails"));
    }

    @Test
    void env_reachesTheServerButNeverTheLogsOrSettingsText() throws Exception {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        root.addAppender(logs);
        try {
            start(server(state));
            assertThat(call("test__secret_env", "{}", new Interrupt()).text()).isEqualTo("secret is set");
            mcp.close();
        } finally {
            root.detachAppender(logs);
        }
        assertThat(logs.list).isNotEmpty().noneMatch(e -> e.getFormattedMessage().contains(SECRET));
        assertThat(server(state).toString()).doesNotContain(SECRET).contains("env=[HERALD_TEST_SECRET]=***");
    }

    @Test
    void allowedTools_limitWhatIsOffered() {
        start(server(state).withAllowedTools(List.of("echo", "add")));

        assertThat(mcp.tools()).extracting(Tool::name).containsExactly("test__echo", "test__add");
    }

    @Test
    void danger_untrustedServerNeedsApprovalTrustedDoesNot() {
        start(server(state).withAllowedTools(List.of("echo")));
        ToolContext context = new ToolContext("s", "scope", "p", workspace, new Interrupt());
        assertThat(mcp.tools().get(0).danger(Args.JSON.createObjectNode(), context).reason())
                .isEqualTo("calls the MCP server 'test' (not marked trusted)");
        mcp.close();

        start(server(state).withAllowedTools(List.of("echo")).withTrusted(true));
        assertThat(mcp.tools().get(0).danger(Args.JSON.createObjectNode(), context).dangerous()).isFalse();
    }

    @Test
    void crash_serverProcessKilled_toolsSayItIsRestartingThenWorkAgainWithTheRefreshedList() throws Exception {
        start(server(state));
        long firstPid = pids().get(0);

        ProcessHandle.of(firstPid).orElseThrow().destroyForcibly();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10))
                .until(() -> mcp.status().get(0).state().equals("RESTARTING"));
        ToolResult meanwhile = call("test__echo", "{\"text\":\"hi\"}", new Interrupt());

        assertThat(meanwhile.ok()).isFalse();
        assertThat(meanwhile.text()).startsWith("Error: mcp - server 'test' is restarting (attempt 1, next in ")
                .contains("'test__echo' was not run").contains("its process exited");
        await().atMost(Duration.ofSeconds(5)).until(() -> mcp.status().get(0).state().equals("READY"));
        assertThat(pids()).hasSize(2).doesNotHaveDuplicates();
        assertThat(ProcessHandle.of(pids().get(1))).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
        assertThat(mcp.tools()).extracting(Tool::name).contains("test__reborn");
        assertThat(call("test__reborn", "{}", new Interrupt())).isEqualTo(ToolResult.ok("start number 2"));
        assertThat(call("test__echo", "{\"text\":\"back\"}", new Interrupt())).isEqualTo(ToolResult.ok("echo: back"));
    }

    @Test
    void start_commandThatDoesNotExist_keepsRetryingWithBackoffAndOffersNothing() throws Exception {
        start(McpServerSettings.stdio("ghost", "/nonexistent/mcp-server", List.of()));

        assertThat(mcp.tools()).isEmpty();
        assertThat(mcp.status()).singleElement().satisfies(s -> {
            assertThat(s.state()).isEqualTo("RESTARTING");
            assertThat(s.attempt()).isEqualTo(1);
        });
    }

    @Test
    void interrupt_duringASlowCall_cancelsItPromptly() throws Exception {
        start(server(state));
        Interrupt interrupt = new Interrupt();
        CompletableFuture.runAsync(() -> interrupt.raise("/stop"), CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
        long start = System.nanoTime();

        ToolResult result = call("test__slow", "{\"seconds\":10}", interrupt);

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);
        assertThat(result.status()).isEqualTo(ToolResult.Status.INTERRUPTED);
        assertThat(result.text()).startsWith("Interrupted: the call of 'test__slow' was cancelled after ").endsWith("(/stop)");
    }
}
