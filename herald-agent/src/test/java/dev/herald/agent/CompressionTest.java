package dev.herald.agent;

import static dev.herald.agent.Harness.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.compress.CompressionSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Compaction;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Automatic compression before a model call, and /compress through {@link ModelAgent#compact}. */
class CompressionTest {
    /** 1,000-token context: compress from 800 estimated tokens, keep up to 250. */
    private static final CompressionSettings SMALL = new CompressionSettings(1_000, 0.8, 0.25);

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(fake);
    private final RecordingListener listener = new RecordingListener();
    private final ModelAgent agent = new ModelAgent(client, AgentSettings.DEFAULT.withCompression(SMALL), ToolRegistry.none());

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private static String words(String tag, int chars) {
        return (tag + " ").repeat(chars / (tag.length() + 1));
    }

    /** Six long old messages (~130 tokens each), then a tool call whose result is still pending for the model. */
    private static List<ChatMessage> longHistory() {
        List<ChatMessage> history = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            history.add(ChatMessage.user(words("question" + i, 500)));
            history.add(ChatMessage.assistant(words("answer" + i, 500)));
        }
        history.add(ChatMessage.assistant(null, List.of(new ToolCall("call_p", "read_file", "{\"path\":\"plan.txt\"}"))));
        history.add(ChatMessage.tool("call_p", "read_file", words("planline", 500)));
        return history;
    }

    @Test
    void runTurn_historyPastTheThreshold_summarizesTheOlderPartContinuesInAChildAndKeepsPendingResultsAndTheGoal() {
        fake.enqueue(Reply.text("The user asked three questions; all answered.").withUsage(900, 20), Reply.text("Here is the plan.").withUsage(300, 5));

        TurnOutcome outcome = agent.runTurn(turn("now finish the plan", longHistory().toArray(ChatMessage[]::new)), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("Here is the plan."));
        assertThat(listener.events).containsExactly("usage:900/20", "compaction:6", "delta:Here ", "delta:is ", "delta:the ", "delta:plan.",
                "usage:300/5", "message:assistant:Here is the plan.");
        Compaction compaction = listener.compactions.get(0);
        assertThat(compaction.summary()).isEqualTo("[Summary of the earlier conversation (6 messages), written when the context was "
                + "compressed]\n\nThe user asked three questions; all answered.");
        assertThat(compaction.kept()).extracting(ChatMessage::role).extracting(r -> r.wire()).containsExactly("assistant", "tool", "user");
        assertThat(compaction.kept().get(2).content()).isEqualTo("now finish the plan");

        RecordedRequest summarization = fake.requests().get(0);
        assertThat(summarization.messages()).extracting(RecordedRequest.Message::role).containsExactly("system", "user");
        assertThat(summarization.messages().get(0).content()).startsWith("You compress conversations");
        assertThat(summarization.lastUserMessage()).contains("question1").contains("answer3").doesNotContain("planline")
                .doesNotContain("now finish the plan");
        assertThat(summarization.tools().isMissingNode()).isTrue();

        RecordedRequest continued = fake.requests().get(1);
        assertThat(continued.messages()).extracting(RecordedRequest.Message::role).containsExactly("user", "assistant", "tool", "user");
        assertThat(continued.messages().get(0).content()).isEqualTo(compaction.summary());
        assertThat(continued.messages().get(2).toolCallId()).isEqualTo("call_p");
        assertThat(continued.lastUserMessage()).isEqualTo("now finish the plan");
    }

    @Test
    void runTurn_listenerThatKeepsNoLineage_stillContinuesOnTheCompactedHistory() {
        List<ChatMessage> stored = new ArrayList<>();
        TurnListener stateless = stored::add;
        fake.enqueue(Reply.text("summary"), Reply.text("done"));

        TurnOutcome outcome = agent.runTurn(turn("go on", longHistory().toArray(ChatMessage[]::new)), stateless, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("done"));
        assertThat(fake.requests().get(1).messages()).hasSize(4);
    }

    @Test
    void runTurn_shortHistory_isNotCompressed() {
        fake.enqueue(Reply.text("hi"));

        agent.runTurn(turn("hello", ChatMessage.user("earlier"), ChatMessage.assistant("reply")), listener, new Interrupt());

        assertThat(listener.compactions).isEmpty();
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void compact_onDemand_summarizesMostOfTheHistoryAndKeepsTheLastUserMessage() {
        List<ChatMessage> history = List.of(ChatMessage.user("plan a trip to Lisbon"), ChatMessage.assistant("Sure, when?"),
                ChatMessage.user("in May, for 4 days"), ChatMessage.assistant("Here is a 4-day plan for Lisbon in May ..."),
                ChatMessage.user("add a day trip to Sintra"), ChatMessage.assistant("Day 3 is now Sintra."),
                ChatMessage.user("and book nothing yet"));
        fake.enqueue(Reply.text("Trip to Lisbon in May, 4 days, Sintra on day 3; nothing booked."));

        Optional<Compaction> compaction = new ModelAgent(client).compact(history, new Interrupt());

        assertThat(compaction).hasValueSatisfying(c -> {
            assertThat(c.summary()).endsWith("Trip to Lisbon in May, 4 days, Sintra on day 3; nothing booked.");
            assertThat(c.kept()).isNotEmpty().last().isEqualTo(ChatMessage.user("and book nothing yet"));
            assertThat(c.summarizedMessages() + c.kept().size()).isEqualTo(history.size());
        });
        assertThat(fake.lastRequest().lastUserMessage()).contains("plan a trip to Lisbon").contains("Sintra");
    }

    @Test
    void compact_twoMessages_isTooShortAndAsksNoModel() {
        assertThat(agent.compact(List.of(ChatMessage.user("hi"), ChatMessage.assistant("hello")), new Interrupt())).isEmpty();
        assertThat(fake.requests()).isEmpty();
    }

    @Test
    void compact_modelFailing_givesNothingAndKeepsTheHistory() {
        fake.enqueue(Reply.error(400, "context too long"));
        List<ChatMessage> history = new ArrayList<>(longHistory());
        history.add(ChatMessage.user("summarize"));

        assertThat(agent.compact(history, new Interrupt())).isEmpty();
    }
}
