package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.retry.Backoff;
import dev.herald.core.transcript.Role;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.Dialect;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The agent over the real client and the fake server: listener calls and outcomes. */
class ModelAgentTest {
    private static final String KEY = "sk-agent-test-secret";
    private static final Backoff FAST = Backoff.jittered(Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofSeconds(5));

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = client(fake.baseUrl(), Duration.ofSeconds(3));
    private final ModelAgent agent = new ModelAgent(client, AgentSettings.withSystemPrompt("You are Herald."));
    private final RecordingListener listener = new RecordingListener();

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private static OpenAiCompatibleClient client(URI baseUrl, Duration idle) {
        return new OpenAiCompatibleClient(new ModelSettings(baseUrl, KEY, "llama3.1", Duration.ofSeconds(1), idle, 2), FAST);
    }

    private static TurnRequest turn(String userMessage, ChatMessage... history) {
        return new TurnRequest("s-1", "loopback:dm:1", List.of(history), userMessage, true, "loopback");
    }

    @Test
    void runTurn_streamedReply_forwardsDeltasThenUsageThenTheMessageAndEndsFinal() {
        fake.enqueue(Reply.stream("Hello", ", ", "world").withUsage(40, 3));

        TurnOutcome outcome = agent.runTurn(turn("hi"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("Hello, world"));
        assertThat(listener.events).containsExactly(
                "delta:Hello", "delta:, ", "delta:world", "usage:40/3", "message:assistant:Hello, world");
    }

    @Test
    void runTurn_sendsSystemPromptThenHistoryThenTheUserMessage() {
        agent.runTurn(turn("and now?", ChatMessage.user("earlier"), ChatMessage.assistant("earlier answer")), listener, new Interrupt());

        RecordedRequest sent = fake.lastRequest();
        assertThat(sent.messages()).extracting(RecordedRequest.Message::role).containsExactly("system", "user", "assistant", "user");
        assertThat(sent.messages().get(0).content()).isEqualTo("You are Herald.");
        assertThat(sent.lastUserMessage()).isEqualTo("and now?");
        assertThat(sent.stream()).isTrue();
    }

    @Test
    void runTurn_withoutSystemPrompt_sendsNone() {
        new ModelAgent(client).runTurn(turn("hi"), listener, new Interrupt());

        assertThat(fake.lastRequest().messages()).extracting(RecordedRequest.Message::role).containsExactly("user");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void runTurn_eachServerDialect_endsFinalWithUsage(Dialect dialect) {
        fake.dialect(dialect).enqueue(Reply.text("same answer").withReasoning("hmm").withUsage(10, 2));

        TurnOutcome outcome = agent.runTurn(turn("hi"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("same answer"));
        assertThat(listener.events).contains("usage:10/2").last().isEqualTo("message:assistant:same answer");
        assertThat(String.join("", listener.deltas)).as("reasoning is not shown as reply text").isEqualTo("same answer");
    }

    @Test
    void runTurn_rateLimitedThenAnswered_endsFinal() {
        fake.enqueue(Reply.error(429, "slow down").withHeader("retry-after-ms", "20"), Reply.text("finally"));

        assertThat(agent.runTurn(turn("hi"), listener, new Interrupt())).isEqualTo(new TurnOutcome.Final("finally"));
        assertThat(fake.requests()).hasSize(2);
    }

    @Test
    void runTurn_wrongApiKey_endsErroredNamingTheSettingWithoutTheKey() {
        fake.requireApiKey("sk-the-right-one");

        TurnOutcome outcome = agent.runTurn(turn("hi"), listener, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Errored.class);
        assertThat(((TurnOutcome.Errored) outcome).detail())
                .isEqualTo("model - " + fake.baseUrl() + " rejected the API key (HTTP 401); check model.api_key");
        assertThat(outcome.replyText()).isEqualTo("The model is unavailable right now: it refused Herald's credentials. "
                + "Please try again later; the operator can see the details in Herald's log.");
        assertThat(outcome.replyText()).doesNotContain(KEY);
        assertThat(listener.events).isEmpty();
    }

    @Test
    void runTurn_unknownModel_endsErroredNamingTheModel() {
        fake.enqueue(Reply.modelNotFound("llama3.1"));

        TurnOutcome outcome = agent.runTurn(turn("hi"), listener, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Errored.class);
        assertThat(((TurnOutcome.Errored) outcome).detail())
                .isEqualTo("model - 'llama3.1' not found at " + fake.baseUrl() + " (HTTP 404); check model.name");
        assertThat(outcome.replyText()).contains("does not offer the configured model").doesNotContain(fake.baseUrl().toString());
    }

    @Test
    void runTurn_serverUnreachable_endsErroredWithoutThrowing() {
        try (OpenAiCompatibleClient nowhere = client(URI.create("http://127.0.0.1:1/v1"), Duration.ofSeconds(1))) {
            TurnOutcome outcome = new ModelAgent(nowhere).runTurn(turn("hi"), listener, new Interrupt());

            assertThat(outcome).isInstanceOf(TurnOutcome.Errored.class);
            assertThat(((TurnOutcome.Errored) outcome).detail()).startsWith("model - http://127.0.0.1:1/v1 unreachable after 3 attempts in ")
                    .endsWith("(connection refused); is the server running?");
            assertThat(outcome.replyText()).isEqualTo("The model is unavailable right now: it could not be reached. "
                    + "Please try again in a moment; the operator can see the details in Herald's log.");
        }
    }

    @Test
    void runTurn_interruptMidStream_endsInterruptedAndRecordsThePartialText() throws Exception {
        Hold hold = fake.enqueueHeld(Reply.stream("Partial ", "answer"), 1);
        Interrupt interrupt = new Interrupt();
        CompletableFuture<Void> stopper = CompletableFuture.runAsync(() -> {
            hold.awaitArrived(Duration.ofSeconds(5));
            try {
                listener.awaitDelta();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            interrupt.raise("shutdown_timeout");
        });

        long start = System.nanoTime();
        TurnOutcome outcome = agent.runTurn(turn("hi"), listener, interrupt);

        stopper.get(5, TimeUnit.SECONDS);
        assertThat(outcome).isEqualTo(new TurnOutcome.Interrupted("shutdown_timeout"));
        assertThat(listener.events).containsExactly("delta:Partial ", "message:assistant:Partial ");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);
    }

    @Test
    void runTurn_interruptAlreadyRaised_endsInterruptedWithoutCallingTheModel() {
        Interrupt interrupt = new Interrupt();
        interrupt.raise("/stop");

        assertThat(agent.runTurn(turn("hi"), listener, interrupt)).isEqualTo(new TurnOutcome.Interrupted("/stop"));
        assertThat(fake.requests()).isEmpty();
    }

    @Test
    void runTurn_streamDroppedAfterText_endsPartialWithThePartialTextRecorded() {
        fake.enqueue(Reply.stream("cut ", "off ", "here").droppedAfter(2));
        RecordingListener chat = RecordingListener.showing();

        TurnOutcome outcome = agent.runTurn(turn("hi"), chat, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Partial.class);
        assertThat(outcome.replyText()).isEqualTo("cut off\n\n(This answer is incomplete: the model's answer broke off. Send your "
                + "message again for a complete answer.)");
        assertThat(((TurnOutcome.Partial) outcome).why()).contains("dropped the connection").contains("the reply was cut off");
        assertThat(chat.messages).containsExactly(ChatMessage.assistant(outcome.replyText()));
    }

    @Test
    void runTurn_silentMidStream_endsPartialWithTheIdleTimeout() {
        fake.enqueueHeld(Reply.stream("wait ", "for it"), 1);
        try (OpenAiCompatibleClient impatient = client(fake.baseUrl(), Duration.ofMillis(300))) {
            RecordingListener chat = RecordingListener.showing();
            TurnOutcome outcome = new ModelAgent(impatient).runTurn(turn("hi"), chat, new Interrupt());

            assertThat(outcome).isInstanceOf(TurnOutcome.Partial.class);
            assertThat(((TurnOutcome.Partial) outcome).why()).contains("went silent mid-reply for 300 ms");
            assertThat(chat.messages).containsExactly(ChatMessage.assistant("wait\n\n(This answer is incomplete: the model stopped "
                    + "sending mid-answer. Send your message again for a complete answer.)"));
        }
    }

    @Test
    void runTurn_emptyReply_endsErroredRatherThanDeliveringNothing() {
        fake.enqueue(Reply.stream().withFinishReason("length"));

        TurnOutcome outcome = agent.runTurn(turn("hi"), listener, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Errored.class);
        assertThat(outcome.replyText()).contains("returned an empty reply (finish length").contains("raise the token limit");
        assertThat(listener.messages).isEmpty();
    }

    @Test
    void runTurn_toolCallsWhileNoToolsAreOffered_endsErroredNamingTheTool() {
        fake.enqueue(Reply.toolCalls(Reply.ToolCall.of("get_weather", "{}")));

        TurnOutcome outcome = agent.runTurn(turn("hi"), listener, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Errored.class);
        assertThat(outcome.replyText()).contains("asked to call 'get_weather' but no tools are enabled");
        assertThat(listener.messages).isEmpty();
    }

    @Test
    void runTurn_listenerFailingOnDeltas_stillEndsFinal() {
        fake.enqueue(Reply.stream("still ", "fine"));
        List<ChatMessage> stored = new java.util.ArrayList<>();
        TurnListener flaky = new TurnListener() {
            @Override
            public void onMessage(ChatMessage message) {
                stored.add(message);
            }

            @Override
            public void onDelta(String text) {
                throw new IllegalStateException("platform gone");
            }
        };

        assertThat(agent.runTurn(turn("hi"), flaky, new Interrupt())).isEqualTo(new TurnOutcome.Final("still fine"));
        assertThat(stored).extracting(ChatMessage::role).containsExactly(Role.ASSISTANT);
    }

    @Test
    void describe_namesTheModelAndEndpoint() {
        assertThat(agent.describe()).isEqualTo("llama3.1 at " + fake.baseUrl());
    }
}
