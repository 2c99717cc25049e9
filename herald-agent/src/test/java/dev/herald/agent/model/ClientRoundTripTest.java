package dev.herald.agent.model;

import static dev.herald.agent.model.Clients.KEY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.transcript.ToolCall;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client against the fake server on loopback: what goes out, what comes back. */
class ClientRoundTripTest {
    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Clients.against(fake);

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    @Test
    void complete_nonStreaming_returnsContentFinishReasonAndUsage() throws Exception {
        fake.enqueue(Reply.text("Hello there").withUsage(12, 3));
        Recorder observer = new Recorder();

        ModelResponse response = client.complete(Clients.blocking("hi"), observer, new Interrupt());

        assertThat(response.content()).isEqualTo("Hello there");
        assertThat(response.finishReason()).isEqualTo("stop");
        assertThat(response.usage()).isEqualTo(new Usage(12, 3));
        assertThat(response.toolCalls()).isEmpty();
        assertThat(observer.content).as("a blocking call streams nothing").isEmpty();
        assertThat(fake.lastRequest().stream()).isFalse();
    }

    @Test
    void complete_streaming_deliversChunksInOrderAndAssemblesTheAnswer() throws Exception {
        fake.enqueue(Reply.stream("Hel", "lo, ", "world").withUsage(20, 4));
        Recorder observer = new Recorder();

        ModelResponse response = client.complete(Clients.streamed("hi"), observer, new Interrupt());

        assertThat(observer.content).containsExactly("Hel", "lo, ", "world");
        assertThat(response.content()).isEqualTo("Hello, world");
        assertThat(response.finishReason()).isEqualTo("stop");
        assertThat(response.usage()).isEqualTo(new Usage(20, 4));
    }

    /** A complete answer hands its connection back: cutting it after [DONE] cost a new connection and sometimes a retry. */
    @Test
    void complete_manyCallsInARow_reuseOneKeepAliveConnection_withoutARetry() throws Exception {
        for (int i = 0; i < 20; i++) {
            fake.enqueue(i % 2 == 0 ? Reply.stream("call ", Integer.toString(i)).withUsage(3, 2) : Reply.text("call " + i));
            ModelRequest request = i % 2 == 0 ? Clients.streamed("hi " + i) : Clients.blocking("hi " + i);

            assertThat(client.complete(request, new Recorder(), new Interrupt()).content()).isEqualTo("call " + i);
        }

        assertThat(fake.requests()).as("one request per call: no retry").hasSize(20);
        assertThat(fake.connections()).as("TCP connections opened for 20 calls").isEqualTo(1);
    }

    @Test
    void complete_sendsModelMessagesStreamFlagUsageOptionAndBearerKey() throws Exception {
        client.complete(Clients.streamed("what time is it?"), new Recorder(), new Interrupt());

        RecordedRequest sent = fake.lastRequest();
        assertThat(sent.path()).isEqualTo("/v1/chat/completions");
        assertThat(sent.model()).isEqualTo("llama3.1");
        assertThat(sent.stream()).isTrue();
        assertThat(sent.includeUsage()).isTrue();
        assertThat(sent.authorization()).isEqualTo("Bearer " + KEY);
        assertThat(sent.messages()).extracting(RecordedRequest.Message::role).containsExactly("system", "user");
        assertThat(sent.lastUserMessage()).isEqualTo("what time is it?");
        assertThat(sent.json().has("temperature")).as("no override, server default").isFalse();
    }

    @Test
    void complete_withoutApiKey_sendsNoAuthorizationHeader() throws Exception {
        try (OpenAiCompatibleClient keyless = Clients.against(Clients.settings(fake.baseUrl()).withApiKey(null))) {
            keyless.complete(Clients.blocking("hi"), StreamObserver.NONE, new Interrupt());
        }

        assertThat(fake.lastRequest().authorization()).isNull();
    }

    @Test
    void complete_requestModelAndSampling_overrideTheDefaults() throws Exception {
        ModelRequest request = Clients.blocking("hi").withModel("qwen3:8b").withSampling(0.2, 256);

        client.complete(request, StreamObserver.NONE, new Interrupt());

        RecordedRequest sent = fake.lastRequest();
        assertThat(sent.model()).isEqualTo("qwen3:8b");
        assertThat(sent.json().path("temperature").asDouble()).isEqualTo(0.2);
        assertThat(sent.json().path("max_tokens").asInt()).isEqualTo(256);
    }

    @Test
    void complete_toolSpecsAndToolHistory_areSentInOpenAiShape() throws Exception {
        ToolSpec weather = ToolSpec.of("get_weather", "Current weather for a city",
                "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}");
        List<ChatMessage> history = List.of(
                ChatMessage.user("weather in Paris?"),
                ChatMessage.assistant(null, List.of(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"))),
                ChatMessage.tool("call_1", "get_weather", "18 C, cloudy"),
                ChatMessage.user("and tomorrow?"));

        client.complete(ModelRequest.streaming(history).withTools(List.of(weather)), new Recorder(), new Interrupt());

        RecordedRequest sent = fake.lastRequest();
        assertThat(sent.tools().get(0).path("type").asText()).isEqualTo("function");
        assertThat(sent.tools().get(0).path("function").path("name").asText()).isEqualTo("get_weather");
        assertThat(sent.tools().get(0).path("function").path("parameters").path("required").get(0).asText()).isEqualTo("city");
        List<RecordedRequest.Message> messages = sent.messages();
        assertThat(messages).extracting(RecordedRequest.Message::role).containsExactly("user", "assistant", "tool", "user");
        assertThat(messages.get(1).content()).isNull();
        assertThat(messages.get(1).toolCalls().get(0).path("function").path("arguments").asText()).isEqualTo("{\"city\":\"Paris\"}");
        assertThat(messages.get(2).toolCallId()).isEqualTo("call_1");
    }

    @Test
    void complete_streamRequestAnsweredWithPlainJson_isAcceptedAndDelivered() throws Exception {
        fake.enqueue(Reply.json(200, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"whole answer\"},"
                + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}"));
        Recorder observer = new Recorder();

        ModelResponse response = client.complete(Clients.streamed("hi"), observer, new Interrupt());

        assertThat(response.content()).isEqualTo("whole answer");
        assertThat(observer.content).containsExactly("whole answer");
        assertThat(response.usage()).isEqualTo(new Usage(5, 2));
    }

    @Test
    void complete_emptyScript_getsTheFakesEchoOfTheLastUserMessage() throws Exception {
        ModelResponse response = client.complete(Clients.streamed("ping"), new Recorder(), new Interrupt());

        assertThat(response.content()).isEqualTo("echo: ping");
    }

    @Test
    void describe_namesModelAndEndpointButNeverTheKey() {
        assertThat(client.describe()).isEqualTo("llama3.1 at " + fake.baseUrl());
        assertThat(client.describe() + client.settings()).doesNotContain(KEY);
    }
}
