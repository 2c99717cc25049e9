package dev.herald.agent;

import static dev.herald.agent.Harness.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.mcp.McpServerSettings;
import dev.herald.agent.mcp.McpTools;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.retry.Backoff;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A turn whose model calls a tool of a real stdio MCP server process. */
class McpTurnTest {
    @TempDir
    Path root;
    @TempDir
    Path state;

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(fake);
    private final RecordingListener listener = new RecordingListener();
    private McpTools mcp;

    @AfterEach
    void stop() {
        if (mcp != null) {
            mcp.close();
        }
        client.close();
        fake.close();
    }

    @Test
    void runTurn_modelCallsAnMcpTool_asksApprovalRunsItInTheServerAndEndsFinal() throws Exception {
        Path script = Path.of(getClass().getResource("/mcp/test_server.py").toURI());
        mcp = new McpTools(List.of(McpServerSettings.stdio("calc", "/usr/bin/python3", List.of(script.toString(), state.toString()))
                .withTimeout(Duration.ofSeconds(5))), Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(2))).start();
        ModelAgent agent = new ModelAgent(client, AgentSettings.DEFAULT, Harness.registry(root, List.of(), mcp));
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("call_add", "calc__add", "{\"a\":40,\"b\":2}")), Reply.text("40 + 2 = 42"));

        TurnOutcome outcome = agent.runTurn(turn("add 40 and 2"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("40 + 2 = 42"));
        assertThat(fake.requests().get(0).tools()).extracting(t -> t.path("function").path("name").asText())
                .contains("calc__echo", "calc__add", "calc__slow");
        assertThat(listener.approvals).containsExactly(new ApprovalRequest("call_add", "calc__add", "calc__add {\"a\":40,\"b\":2}",
                "calls the MCP server 'calc' (not marked trusted)",
                "MCP server 'calc', tool 'add', arguments:\n{\n  \"a\" : 40,\n  \"b\" : 2\n}"));
        assertThat(listener.toolResults()).containsExactly(ChatMessage.tool("call_add", "calc__add", "42"));
    }
}
