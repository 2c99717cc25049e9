package dev.herald.agent.compress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelRequest;
import dev.herald.agent.model.ModelResponse;
import dev.herald.agent.model.StreamObserver;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the compactor cuts a conversation. */
class CompactorTest {
    private static final ModelClient UNUSED = new ModelClient() {
        @Override
        public ModelResponse complete(ModelRequest request, StreamObserver observer, Interrupt interrupt) {
            throw new AssertionError("no model call expected");
        }

        @Override
        public String describe() {
            return "unused";
        }
    };
    private final Compactor compactor = new Compactor(UNUSED, new CompressionSettings(1_000, 0.8, 0.25));

    private static String chars(int n) {
        return "x".repeat(n);
    }

    @Test
    void plan_cutThatWouldFallInsideAToolGroup_movesBackToTheAssistantCall() {
        List<ChatMessage> conversation = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            conversation.add(ChatMessage.user(chars(400)));
            conversation.add(ChatMessage.assistant(chars(400)));
        }
        conversation.add(ChatMessage.assistant(null, List.of(new ToolCall("a", "t", "{}"), new ToolCall("b", "t", "{}"))));
        conversation.add(ChatMessage.tool("a", "t", chars(600)));
        conversation.add(ChatMessage.tool("b", "t", chars(300)));

        Compactor.Plan plan = compactor.plan(conversation, -1, false).orElseThrow();

        assertThat(plan.kept()).extracting(ChatMessage::role).containsExactly(Role.ASSISTANT, Role.TOOL, Role.TOOL);
        assertThat(plan.kept().get(0).toolCalls()).hasSize(2);
        assertThat(plan.older()).hasSize(8);
    }

    @Test
    void plan_goalInTheOlderPart_isMovedToTheHeadOfTheKeptPart() {
        List<ChatMessage> conversation = new ArrayList<>(List.of(ChatMessage.user(chars(400)), ChatMessage.assistant(chars(400)),
                ChatMessage.user("the goal")));
        for (int i = 0; i < 5; i++) {
            conversation.add(ChatMessage.assistant(null, List.of(new ToolCall("c" + i, "t", "{}"))));
            conversation.add(ChatMessage.tool("c" + i, "t", chars(400)));
        }

        Compactor.Plan plan = compactor.plan(conversation, 2, false).orElseThrow();

        assertThat(plan.kept().get(0)).isEqualTo(ChatMessage.user("the goal"));
        assertThat(plan.kept().get(1).role()).isEqualTo(Role.ASSISTANT);
        assertThat(plan.older()).doesNotContain(ChatMessage.user("the goal"));
        assertThat(plan.older().size() + plan.kept().size()).isEqualTo(conversation.size());
    }

    @Test
    void plan_everythingFitsTheKeptShare_isEmpty() {
        assertThat(compactor.plan(List.of(ChatMessage.user("a"), ChatMessage.assistant("b"), ChatMessage.user("c")), 2, false)).isEmpty();
    }

    @Test
    void estimate_isCharactersOverFourPlusFramingPerMessage() {
        assertThat(TokenEstimate.of(ChatMessage.user(chars(400)))).isEqualTo(104);
        assertThat(TokenEstimate.of(List.of(ChatMessage.user(""), ChatMessage.assistant(chars(8))))).isEqualTo(4 + 6);
    }

    @Test
    void contextWindow_knownFamiliesHaveTheirSizeAndOthersTheFallback() {
        assertThat(ContextWindow.forModel("gpt-4o-mini")).isEqualTo(128_000);
        assertThat(ContextWindow.forModel("llama3.1:8b")).isEqualTo(131_072);
        assertThat(ContextWindow.forModel("meta-llama/Meta-Llama-3.1-8B-Instruct")).isEqualTo(131_072);
        assertThat(ContextWindow.forModel("llama3")).isEqualTo(8_192);
        assertThat(ContextWindow.forModel("qwen2.5-coder:7b")).isEqualTo(32_768);
        assertThat(ContextWindow.forModel("o3-mini")).isEqualTo(128_000);
        assertThat(ContextWindow.forModel("something-new")).isEqualTo(ContextWindow.FALLBACK);
        assertThat(CompressionSettings.forModel("gpt-4o", 50_000).contextTokens()).isEqualTo(50_000);
    }
}
