package dev.herald.agent.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Interrupt;
import dev.herald.core.transcript.ToolCall;
import dev.herald.testkit.model.Dialect;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Tool calls assembled from streamed deltas, however the server cuts them up. */
class ToolCallAssemblyTest {
    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Clients.against(fake);

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private ModelResponse streamed() throws ModelException {
        return client.complete(Clients.streamed("use tools"), new Recorder(), new Interrupt());
    }

    private static String delta(String toolCallJson) {
        return "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[" + toolCallJson + "]}}]}";
    }

    private static final String FINISH = "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}";

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void toolCalls_fromEachDialect_areAssembledWhole(Dialect dialect) throws Exception {
        fake.dialect(dialect).enqueue(Reply.toolCalls(
                Reply.ToolCall.of("get_weather", "{\"city\":\"Paris\",\"unit\":\"C\"}"),
                Reply.ToolCall.of("get_time", "{\"zone\":\"Europe/Paris\"}")));

        ModelResponse response = streamed();

        assertThat(response.toolCalls()).containsExactly(
                new ToolCall("call_fake_0", "get_weather", "{\"city\":\"Paris\",\"unit\":\"C\"}"),
                new ToolCall("call_fake_1", "get_time", "{\"zone\":\"Europe/Paris\"}"));
        assertThat(response.finishReason()).isEqualTo("tool_calls");
        assertThat(response.content()).isEmpty();
    }

    @Test
    void toolCalls_interleavedDeltasByIndex_areAssembledPerCall() throws Exception {
        fake.enqueue(Reply.sse(
                delta("{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"one\",\"arguments\":\"\"}}"),
                delta("{\"index\":1,\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"two\",\"arguments\":\"{\\\"y\\\"\"}}"),
                delta("{\"index\":0,\"function\":{\"arguments\":\"{\\\"x\\\":1}\"}}"),
                delta("{\"index\":1,\"function\":{\"arguments\":\":2}\"}}"),
                FINISH));

        assertThat(streamed().toolCalls()).containsExactly(new ToolCall("a", "one", "{\"x\":1}"), new ToolCall("b", "two", "{\"y\":2}"));
    }

    @Test
    void toolCalls_deltasWithIdButNoIndex_areAssembledById() throws Exception {
        fake.enqueue(Reply.sse(
                delta("{\"id\":\"a\",\"function\":{\"name\":\"one\",\"arguments\":\"{\\\"x\\\"\"}}"),
                delta("{\"id\":\"b\",\"function\":{\"name\":\"two\",\"arguments\":\"{\\\"y\\\"\"}}"),
                delta("{\"id\":\"a\",\"function\":{\"arguments\":\":1}\"}}"),
                delta("{\"id\":\"b\",\"function\":{\"arguments\":\":2}\"}}"),
                FINISH));

        assertThat(streamed().toolCalls()).containsExactly(new ToolCall("a", "one", "{\"x\":1}"), new ToolCall("b", "two", "{\"y\":2}"));
    }

    @Test
    void toolCalls_nameArrivingInALaterChunk_isKept() throws Exception {
        fake.enqueue(Reply.sse(
                delta("{\"index\":0,\"id\":\"a\",\"function\":{\"arguments\":\"{}\"}}"),
                delta("{\"index\":0,\"function\":{\"name\":\"late_name\"}}"),
                FINISH));

        assertThat(streamed().toolCalls()).containsExactly(new ToolCall("a", "late_name", "{}"));
    }

    @Test
    void toolCalls_nameRepeatedOnEveryDelta_isNotDoubled() throws Exception {
        fake.enqueue(Reply.sse(
                delta("{\"function\":{\"name\":\"add\",\"arguments\":\"{\\\"a\\\":\"}}"),
                delta("{\"function\":{\"name\":\"add\",\"arguments\":\"1}\"}}"),
                FINISH));

        assertThat(streamed().toolCalls()).containsExactly(new ToolCall("call_0", "add", "{\"a\":1}"));
    }

    @Test
    void toolCalls_argumentsSplitInsideKeysAndEscapes_areJoinedExactly() throws Exception {
        String arguments = "{\"path\":\"C:\\\\tmp\\\\a \\\"b\\\".txt\",\"n\":10}";
        String escaped = arguments.replace("\\", "\\\\").replace("\"", "\\\"");
        // cut between "p|ath" and "tm|p": inside a key and between escape sequences of the path
        int cut1 = escaped.indexOf("path") + 1;
        int cut2 = escaped.indexOf("tmp") + 2;
        String[] pieces = {escaped.substring(0, cut1), escaped.substring(cut1, cut2), escaped.substring(cut2)};
        fake.enqueue(Reply.sse(
                delta("{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"read\",\"arguments\":\"" + pieces[0] + "\"}}"),
                delta("{\"index\":0,\"function\":{\"arguments\":\"" + pieces[1] + "\"}}"),
                delta("{\"index\":0,\"function\":{\"arguments\":\"" + pieces[2] + "\"}}"),
                FINISH));

        assertThat(streamed().toolCalls()).containsExactly(new ToolCall("a", "read", arguments));
    }

    @Test
    void toolCalls_withoutIds_getStableGeneratedIds() throws Exception {
        Reply reply = Reply.sse(
                delta("{\"index\":0,\"function\":{\"name\":\"one\",\"arguments\":\"{}\"}}"),
                delta("{\"index\":1,\"function\":{\"name\":\"two\",\"arguments\":\"{}\"}}"),
                FINISH);
        fake.enqueue(reply, reply);

        List<ToolCall> first = streamed().toolCalls();
        List<ToolCall> second = streamed().toolCalls();

        assertThat(first).extracting(ToolCall::id).containsExactly("call_0", "call_1");
        assertThat(second).isEqualTo(first);
    }

    @Test
    void toolCalls_withoutIdOrIndex_startANewCallWhenAnotherToolIsNamed() throws Exception {
        fake.enqueue(Reply.sse(
                delta("{\"function\":{\"name\":\"one\",\"arguments\":\"{\\\"a\\\":1}\"}}"),
                delta("{\"function\":{\"name\":\"two\",\"arguments\":\"{\\\"b\\\":2}\"}}"),
                FINISH));

        assertThat(streamed().toolCalls()).containsExactly(
                new ToolCall("call_0", "one", "{\"a\":1}"), new ToolCall("call_1", "two", "{\"b\":2}"));
    }

    @Test
    void toolCalls_sameIndexWithANewId_startANewCall() throws Exception {
        fake.enqueue(Reply.sse(
                "{\"choices\":[{\"delta\":{\"tool_calls\":["
                        + "{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"one\",\"arguments\":\"{}\"}},"
                        + "{\"index\":0,\"id\":\"b\",\"function\":{\"name\":\"two\",\"arguments\":\"{}\"}}]}}]}",
                FINISH));

        assertThat(streamed().toolCalls()).extracting(ToolCall::id).containsExactly("a", "b");
    }

    @Test
    void toolCalls_malformedArguments_areKeptAsText() throws Exception {
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("x", "broken", "{\"city\": \"Par")));

        assertThat(streamed().toolCalls()).containsExactly(new ToolCall("x", "broken", "{\"city\": \"Par"));
    }

    @Test
    void toolCalls_argumentsSentAsAnObject_areKeptAsJsonText() throws Exception {
        fake.enqueue(Reply.sse(delta("{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"one\",\"arguments\":{\"x\":1}}}"), FINISH));

        assertThat(streamed().toolCalls()).containsExactly(new ToolCall("a", "one", "{\"x\":1}"));
    }

    @Test
    void toolCalls_nonStreamed_areDecodedWithGeneratedIdsWhereMissing() throws Exception {
        fake.enqueue(Reply.json(200, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                + "{\"type\":\"function\",\"function\":{\"name\":\"one\",\"arguments\":\"{}\"}},"
                + "{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"two\",\"arguments\":{\"y\":2}}}]},"
                + "\"finish_reason\":\"tool_calls\"}]}"));

        ModelResponse response = client.complete(Clients.blocking("use tools"), StreamObserver.NONE, new Interrupt());

        assertThat(response.toolCalls()).containsExactly(new ToolCall("call_0", "one", "{}"), new ToolCall("b", "two", "{\"y\":2}"));
        assertThat(response.toMessage().content()).isNull();
    }

    @Test
    void toolCalls_contentAndCallsInOneAnswer_areBothKept() throws Exception {
        fake.enqueue(Reply.stream("Let me check. ").withToolCalls(Reply.ToolCall.of("get_weather", "{}")));

        ModelResponse response = streamed();

        assertThat(response.content()).isEqualTo("Let me check. ");
        assertThat(response.toolCalls()).extracting(ToolCall::name).containsExactly("get_weather");
    }
}
