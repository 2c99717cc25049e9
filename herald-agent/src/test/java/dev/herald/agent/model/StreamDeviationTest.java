package dev.herald.agent.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Interrupt;
import dev.herald.testkit.model.Dialect;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What local servers send that OpenAI does not, and how the client takes it. */
class StreamDeviationTest {
    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Clients.against(fake);

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private ModelResponse streamed(Recorder observer) throws ModelException {
        return client.complete(Clients.streamed("hi"), observer, new Interrupt());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void stream_eachDialect_givesTheSameAnswerAndUsage(Dialect dialect) throws Exception {
        fake.dialect(dialect).enqueue(Reply.stream("one ", "two ", "three").withUsage(30, 3));
        Recorder observer = new Recorder();

        ModelResponse response = streamed(observer);

        assertThat(observer.content).containsExactly("one ", "two ", "three");
        assertThat(response.content()).isEqualTo("one two three");
        assertThat(response.usage()).isEqualTo(new Usage(30, 3));
        assertThat(response.finishReason()).isEqualTo("stop");
    }

    @Test
    void stream_usageOnlyChunkWithoutId_isAccepted() throws Exception {
        fake.enqueue(Reply.sse(
                "{\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"}}]}",
                "{\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}",
                "{\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":1,\"total_tokens\":8}}"));

        ModelResponse response = streamed(new Recorder());

        assertThat(response.content()).isEqualTo("Hi");
        assertThat(response.usage()).isEqualTo(new Usage(7, 1));
    }

    @Test
    void stream_usageChunkWithEmptyChoices_isAccepted() throws Exception {
        fake.enqueue(Reply.stream("Hi").in(Dialect.VLLM).withUsage(9, 1));

        ModelResponse response = streamed(new Recorder());

        assertThat(response.usage()).isEqualTo(new Usage(9, 1));
    }

    @Test
    void stream_reasoningContentDeltas_areDeliveredAsReasoning() throws Exception {
        fake.enqueue(Reply.stream("42").withReasoning("think hard").in(Dialect.LLAMA_CPP));
        Recorder observer = new Recorder();

        ModelResponse response = streamed(observer);

        assertThat(observer.reasoning).containsExactly("think ", "hard");
        assertThat(response.reasoning()).isEqualTo("think hard");
        assertThat(response.content()).isEqualTo("42");
    }

    @Test
    void stream_reasoningDeltas_areDeliveredAsReasoning() throws Exception {
        fake.enqueue(Reply.stream("42").withReasoning("think hard").in(Dialect.OLLAMA));
        Recorder observer = new Recorder();

        ModelResponse response = streamed(observer);

        assertThat(response.reasoning()).isEqualTo("think hard");
        assertThat(observer.content).containsExactly("42");
    }

    @Test
    void stream_commentsEventLinesNoSpaceDataAndEmptyChoices_areTolerated() throws Exception {
        fake.enqueue(Reply.rawLines(
                ": keep-alive",
                "event: message",
                "data:{\"choices\":[]}",
                "",
                "data:{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}",
                "",
                "data: {\"choices\":[{\"delta\":{\"content\":null}}]}",
                "data: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}",
                "",
                "data: [DONE]",
                ""));
        Recorder observer = new Recorder();

        ModelResponse response = streamed(observer);

        assertThat(observer.content).containsExactly("a", "b");
        assertThat(response.finishReason()).isEqualTo("stop");
        assertThat(response.usage()).isNull();
    }

    @Test
    void stream_payloadSplitOverTwoDataLines_isJoined() throws Exception {
        fake.enqueue(Reply.rawLines(
                "data: {\"choices\":[{\"delta\":",
                "data: {\"content\":\"joined\"}}]}",
                "",
                "data: [DONE]",
                ""));

        assertThat(streamed(new Recorder()).content()).isEqualTo("joined");
    }

    @Test
    void stream_unreadableLineFollowedByGoodChunks_isSkipped() throws Exception {
        fake.enqueue(Reply.rawLines(
                "data: not json at all",
                "",
                "data: {\"choices\":[{\"delta\":{\"content\":\"fine\"}}]}",
                "",
                "data: [DONE]",
                ""));

        assertThat(streamed(new Recorder()).content()).isEqualTo("fine");
    }

    @Test
    void stream_endingWithoutDoneMarker_endsAtTheEndOfTheBody() throws Exception {
        fake.enqueue(Reply.rawLines(
                "data: {\"choices\":[{\"delta\":{\"content\":\"no done\"},\"finish_reason\":\"stop\"}]}",
                ""));

        assertThat(streamed(new Recorder()).content()).isEqualTo("no done");
    }

    @Test
    void stream_contentAsArrayOfTextParts_isJoined() throws Exception {
        fake.enqueue(Reply.sse("{\"choices\":[{\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\"par\"},{\"type\":\"text\",\"text\":\"ts\"}]}}]}"));

        assertThat(streamed(new Recorder()).content()).isEqualTo("parts");
    }
}
