package dev.herald.agent;

import static dev.herald.agent.Harness.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.Dialect;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The tool-calling loop over the real client and the fake model server. */
class ToolLoopTest {
    @TempDir
    Path root;

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(fake);
    private final RecordingListener listener = new RecordingListener();
    private final Harness.Counting count = new Harness.Counting("count");

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private ModelAgent agent(AgentSettings settings) {
        return new ModelAgent(client, settings, Harness.registry(root, List.of(count, new Harness.Rendezvous(2))));
    }

    private ModelAgent agent() {
        return agent(AgentSettings.withSystemPrompt("You are Herald."));
    }

    private static Reply.ToolCall call(String id, String name, String args) {
        return new Reply.ToolCall(id, name, args);
    }

    @Test
    void runTurn_multiStepToolTurn_recordsEachCallBeforeRunningItThenItsResultAndEndsFinal() {
        fake.enqueue(Reply.toolCalls(call("call_w", "write_file", "{\"path\":\"notes.txt\",\"content\":\"hello\"}")).withUsage(100, 10),
                Reply.toolCalls(call("call_r", "read_file", "{\"path\":\"notes.txt\"}")).withUsage(150, 12),
                Reply.text("The file says hello").withUsage(200, 5));

        TurnOutcome outcome = agent().runTurn(turn("write then read"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("The file says hello"));
        assertThat(listener.messages).extracting(ChatMessage::role)
                .containsExactly(Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
        assertThat(listener.messages.get(0).toolCalls()).containsExactly(
                new ToolCall("call_w", "write_file", "{\"path\":\"notes.txt\",\"content\":\"hello\"}"));
        assertThat(listener.messages.get(1).toolCallId()).isEqualTo("call_w");
        assertThat(listener.messages.get(1).content()).startsWith("wrote 5 characters to ").endsWith("notes.txt");
        assertThat(listener.messages.get(3).content()).contains("notes.txt").endsWith("hello\n");
        assertThat(listener.events).containsSubsequence("message:assistant:null", "start:write_file", "done:write_file:true",
                "message:tool:" + listener.messages.get(1).content(), "message:assistant:null", "start:read_file");
        assertThat(listener.events).filteredOn(e -> e.startsWith("usage:")).containsExactly("usage:100/10", "usage:150/12", "usage:200/5");

        RecordedRequest last = fake.lastRequest();
        assertThat(last.messages()).extracting(RecordedRequest.Message::role)
                .containsExactly("system", "user", "assistant", "tool", "assistant", "tool");
        assertThat(last.messages().get(3).toolCallId()).isEqualTo("call_w");
        assertThat(last.tools()).extracting(t -> t.path("function").path("name").asText())
                .contains("shell", "read_file", "write_file", "list_dir", "http_get", "todo", "count");
    }

    @Test
    void runTurn_parallelCallsInOneMessage_runConcurrentlyAndRecordResultsInCallOrder() {
        fake.enqueue(Reply.toolCalls(call("call_a", "meet", "{\"who\":\"a\"}"), call("call_b", "meet", "{\"who\":\"b\"}")),
                Reply.text("both met"));

        TurnOutcome outcome = agent().runTurn(turn("meet"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("both met"));
        assertThat(listener.toolResults()).extracting(ChatMessage::toolCallId, ChatMessage::content)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("call_a", "a together"),
                        org.assertj.core.groups.Tuple.tuple("call_b", "b together"));
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void runTurn_toolCallStreamedInEachServerDialect_runsTheToolOnceWithItsArguments(Dialect dialect) {
        fake.dialect(dialect).enqueue(Reply.toolCalls(Reply.ToolCall.of("count", "{\"x\":\"split across chunks\"}")),
                Reply.text("counted"));

        TurnOutcome outcome = agent().runTurn(turn("count"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("counted"));
        assertThat(count.runs).containsExactly("{\"x\":\"split across chunks\"}");
        assertThat(listener.toolResults()).singleElement().extracting(ChatMessage::content).isEqualTo("ran {\"x\":\"split across chunks\"}");
    }

    @Test
    void runTurn_malformedArguments_giveTheModelAnErrorResultAndRunNothing() {
        fake.enqueue(Reply.toolCalls(call("call_m", "count", "{\"x\": ")), Reply.text("sorry, fixed"));

        TurnOutcome outcome = agent().runTurn(turn("count"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("sorry, fixed"));
        assertThat(count.runs).isEmpty();
        String result = listener.toolResults().get(0).content();
        assertThat(result).startsWith("Error: the arguments for 'count' are not valid JSON (").endsWith("Nothing was run.");
        assertThat(fake.lastRequest().messages()).extracting(RecordedRequest.Message::content).contains(result);
    }

    @Test
    void runTurn_unknownTool_givesAnErrorResultNamingTheAvailableTools() {
        fake.enqueue(Reply.toolCalls(call("call_u", "teleport", "{}")), Reply.text("I cannot teleport"));

        agent().runTurn(turn("go"), listener, new Interrupt());

        assertThat(listener.toolResults().get(0).content()).isEqualTo("Error: there is no tool named 'teleport'. Available tools: "
                + "shell, read_file, write_file, list_dir, http_get, todo, send_file, count, meet. Nothing was run.");
    }

    @Test
    void runTurn_onlyUnknownToolsThreeRoundsInARow_endsFailed() {
        fake.enqueue(Reply.toolCalls(call("c1", "nope", "{}")), Reply.toolCalls(call("c2", "nope", "{}")),
                Reply.toolCalls(call("c3", "nope", "{}")), Reply.text("never asked"));

        TurnOutcome outcome = agent().runTurn(turn("go"), listener, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Failed.class);
        assertThat(outcome.replyText()).contains("unknown tools or sent malformed arguments 3 rounds in a row");
        assertThat(listener.toolResults()).hasSize(3);
        assertThat(fake.requests()).hasSize(3);
    }

    @Test
    void runTurn_iterationLimitReachedWhileStillCallingTools_endsNotCompletedWithEveryResultRecorded() {
        fake.enqueue(Reply.toolCalls(call("c1", "count", "{\"x\":\"1\"}")),
                Reply.stream("still working").withToolCalls(call("c2", "count", "{\"x\":\"2\"}")));

        TurnOutcome outcome = agent(AgentSettings.DEFAULT.withMaxIterations(2)).runTurn(turn("loop"), listener, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.NotCompleted.class);
        assertThat(((TurnOutcome.NotCompleted) outcome).why()).contains("stopped after 2 model calls (agent.max_iterations)");
        assertThat(outcome.replyText()).isEqualTo("still working");
        assertThat(count.runs).hasSize(2);
        assertThat(listener.messages.getLast().role()).isEqualTo(Role.TOOL);
        assertThat(fake.requests()).hasSize(2);
    }

    @Test
    void runTurn_resumedHistoryWithAClosedDanglingCall_isSentUntouchedAndNoCompletedCallIsRunAgain() {
        List<ChatMessage> history = List.of(
                ChatMessage.user("count twice"),
                ChatMessage.assistant(null, List.of(new ToolCall("call_1", "count", "{\"x\":\"1\"}"), new ToolCall("call_2", "count", "{\"x\":\"2\"}"))),
                ChatMessage.tool("call_1", "count", "ran {\"x\":\"1\"}"),
                ChatMessage.tool("call_2", "count", "Denied because the gateway restarted (or the turn was stopped) before anyone approved this call. It was not run."));
        fake.enqueue(Reply.text("call 1 ran; call 2 was not run"));

        TurnOutcome outcome = agent(AgentSettings.DEFAULT).runTurn(turn("[System note: resumed] continue", history.toArray(ChatMessage[]::new)),
                listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("call 1 ran; call 2 was not run"));
        assertThat(count.runs).isEmpty();
        List<RecordedRequest.Message> sent = fake.lastRequest().messages();
        assertThat(sent).extracting(RecordedRequest.Message::role).containsExactly("user", "assistant", "tool", "tool", "user");
        assertThat(sent).extracting(RecordedRequest.Message::toolCallId).containsExactly(null, null, "call_1", "call_2", null);
        assertThat(sent.get(1).toolCalls()).hasSize(2);
        assertThat(sent.get(3).content()).startsWith("Denied because the gateway restarted");
        assertThat(listener.messages).containsExactly(ChatMessage.assistant("call 1 ran; call 2 was not run"));
    }

    @Test
    void runTurn_serverReusingCallIdsAcrossRounds_getsDistinctIdsPairedWithTheirResults() {
        fake.enqueue(Reply.toolCalls(Reply.ToolCall.of("count", "{\"x\":\"1\"}")), Reply.toolCalls(Reply.ToolCall.of("count", "{\"x\":\"2\"}")),
                Reply.text("done"));

        agent().runTurn(turn("twice"), listener, new Interrupt());

        List<ChatMessage> calls = listener.messages.stream().filter(ChatMessage::hasToolCalls).toList();
        assertThat(calls).extracting(m -> m.toolCalls().get(0).id()).containsExactly("call_fake_0", "call_fake_0_2");
        assertThat(listener.toolResults()).extracting(ChatMessage::toolCallId).containsExactly("call_fake_0", "call_fake_0_2");
    }

    @Test
    void runTurn_emptyAnswerAfterTools_endsCompleted() {
        fake.enqueue(Reply.toolCalls(call("c1", "count", "{}")), Reply.stream());

        assertThat(agent().runTurn(turn("just do it"), listener, new Interrupt())).isEqualTo(new TurnOutcome.Completed());
    }

    @Test
    void runTurn_refusedByContentFilter_endsFailed() {
        fake.enqueue(Reply.stream().withFinishReason("content_filter"));

        TurnOutcome outcome = agent().runTurn(turn("something bad"), listener, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Failed.class);
        assertThat(outcome.replyText()).contains("refused to answer (finish content_filter)");
    }

    @Test
    void runTurn_listenerFailingToStoreTheCallMessage_endsErroredWithoutRunningTheTool() {
        fake.enqueue(Reply.toolCalls(call("c1", "count", "{}")));
        TurnListener broken = new TurnListener() {
            @Override
            public void onMessage(ChatMessage message) {
                throw new IllegalStateException("disk full");
            }
        };

        TurnOutcome outcome = agent().runTurn(turn("count"), broken, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Errored.class);
        assertThat(((TurnOutcome.Errored) outcome).detail()).contains("IllegalStateException: disk full");
        assertThat(outcome.replyText()).isEqualTo(dev.herald.core.UserErrors.APOLOGY);
        assertThat(dev.herald.core.UserErrors.unfit(outcome.replyText())).as("the user's text").isEmpty();
        assertThat(count.runs).isEmpty();
    }

    @Test
    void runTurn_listenerFailingBecauseTheStoreCannotWrite_throwsTheOutage_withoutRunningTheTool() {
        fake.enqueue(Reply.toolCalls(call("c1", "count", "{}")));
        dev.herald.core.session.StoreException outage = dev.herald.core.session.StoreException.outage("transcript s-1", null, true);
        TurnListener broken = new TurnListener() {
            @Override
            public void onMessage(ChatMessage message) {
                throw outage;
            }
        };

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> agent().runTurn(turn("count"), broken, new Interrupt()))
                .as("not the turn's failure: the gateway interrupts and resumes it").isSameAs(outage);
        assertThat(count.runs).isEmpty();
    }

    @Test
    void runTurn_platformWithItsOwnToolList_offersOnlyThoseTools() {
        var settings = dev.herald.agent.tool.ToolSettings.defaults(root).withPlatformTools("api_server", List.of("read_file", "count"));
        var registry = new dev.herald.agent.tool.ToolRegistry(settings, List.of(new dev.herald.agent.tool.ReadFileTool(settings), count),
                List.of());
        fake.enqueue(Reply.text("ok"));

        new ModelAgent(client, AgentSettings.DEFAULT, registry).runTurn(
                new dev.herald.core.agent.TurnRequest("s-2", null, List.of(), "hi", false, "api_server"), listener, new Interrupt());

        assertThat(fake.lastRequest().tools()).extracting(t -> t.path("function").path("name").asText()).containsExactly("read_file", "count");
    }

    /** An API caller's own tools where nobody can approve: shell would only be denied, so it is not offered; safe tools are. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void runTurn_callerWithItsOwnTools_isOfferedShellOnlyWhereACallCanBeApproved(boolean canApprove) {
        fake.enqueue(Reply.text("ok"));
        var options = new dev.herald.core.agent.TurnOptions(null, java.util.Map.of(),
                List.of(new dev.herald.core.agent.TurnOptions.ClientTool("get_weather", "The weather", null)), List.of());
        TurnListener who = new TurnListener() {
            @Override
            public void onMessage(ChatMessage message) {
            }

            @Override
            public boolean canApprove() {
                return canApprove;
            }
        };

        agent().runTurn(new dev.herald.core.agent.TurnRequest("s-3", null, List.of(), "weather?", false, "loopback", options), who,
                new Interrupt());

        List<String> offered = new java.util.ArrayList<>();
        fake.lastRequest().tools().forEach(t -> offered.add(t.path("function").path("name").asText()));
        assertThat(offered).contains("get_weather", "read_file", "count");
        if (canApprove) {
            assertThat(offered).contains("shell");
        } else {
            assertThat(offered).doesNotContain("shell");
        }
    }
}
