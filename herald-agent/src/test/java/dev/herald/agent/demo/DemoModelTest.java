package dev.herald.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelException;
import dev.herald.agent.model.ModelRequest;
import dev.herald.agent.model.ModelResponse;
import dev.herald.agent.model.StreamObserver;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.continuity.RecoveryNotes;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.turn.TurnOutcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoModelTest {
    private final DemoModel demo = new DemoModel();

    private static final class Chunks implements StreamObserver {
        final List<String> chunks = new ArrayList<>();

        @Override
        public void onContent(String delta) {
            chunks.add(delta);
        }
    }

    private ModelResponse ask(String userText, Chunks chunks) throws ModelException {
        return demo.complete(ModelRequest.streaming(List.of(ChatMessage.system("sys"), ChatMessage.user(userText))), chunks, new Interrupt());
    }

    @Test
    void complete_sameInput_givesTheSameReplyChunksAndUsage() throws Exception {
        Chunks first = new Chunks();
        Chunks second = new Chunks();

        ModelResponse a = ask("What is Herald?", first);
        ModelResponse b = ask("What is Herald?", second);

        assertThat(a).isEqualTo(b);
        assertThat(first.chunks).isEqualTo(second.chunks);
    }

    @Test
    void complete_reply_isLabelledEchoesTheMessageAndSaysHowToConfigureAModel() throws Exception {
        ModelResponse response = ask("What is Herald?", new Chunks());

        assertThat(response.content()).startsWith("[demo model] ").contains("You said: \"What is Herald?\"")
                .contains("model.base_url").contains("model.name").contains("config.yaml");
        assertThat(response.finishReason()).isEqualTo("stop");
        assertThat(response.usage().promptTokens()).isPositive();
        assertThat(response.usage().completionTokens()).isEqualTo((response.content().length() + 3) / 4);
    }

    @Test
    void complete_streaming_sendsSeveralChunksThatJoinToTheReply() throws Exception {
        Chunks chunks = new Chunks();

        ModelResponse response = ask("hello", chunks);

        assertThat(chunks.chunks).hasSizeGreaterThan(3);
        assertThat(String.join("", chunks.chunks)).isEqualTo(response.content());
    }

    @Test
    void complete_notStreaming_sendsNoChunks() throws Exception {
        Chunks chunks = new Chunks();

        demo.complete(ModelRequest.blocking(List.of(ChatMessage.user("hello"))), chunks, new Interrupt());

        assertThat(chunks.chunks).isEmpty();
    }

    @Test
    void complete_emptyUserMessage_saysItWasEmpty() throws Exception {
        assertThat(ask("   ", new Chunks()).content()).startsWith("[demo model] I received an empty message.");
    }

    @Test
    void complete_recoveryNoteBeforeTheMessage_saysResumedAndEchoesOnlyTheMessage() throws Exception {
        String withNote = RecoveryNotes.resumeNote(ResumeReason.RESTART_TIMEOUT, "are you back?", true);

        String reply = ask(withNote, new Chunks()).content();

        assertThat(reply).startsWith("[demo model] Resumed after an interruption. You said: \"are you back?\".")
                .doesNotContain("System note");
    }

    @Test
    void complete_recoveryNoteAlone_saysResumedWithNothingToAnswer() throws Exception {
        String noteOnly = RecoveryNotes.resumeNote(ResumeReason.RESTART_TIMEOUT, "", false);

        assertThat(ask(noteOnly, new Chunks()).content()).startsWith("[demo model] Resumed after an interruption. There is no new message");
    }

    /** A story cut off by a restart: the resumed turn (the note alone) tells it again, whole, not a generic "resumed" reply. */
    @Test
    void complete_recoveryNoteAloneAfterACutOffStory_tellsTheStoryAgain() throws Exception {
        String noteOnly = RecoveryNotes.resumeNote(ResumeReason.RESTART_TIMEOUT, "", true);
        List<ChatMessage> history = List.of(ChatMessage.system("sys"), ChatMessage.user("tell me a story"), ChatMessage.user(noteOnly));

        String reply = demo.complete(ModelRequest.blocking(history), StreamObserver.NONE, new Interrupt()).content();
        String story = ask("tell me a story", new Chunks()).content();

        assertThat(reply).startsWith("[demo model] Resumed after an interruption. ")
                .endsWith(story.substring("[demo model] ".length())).doesNotContain("no new message");
    }

    @Test
    void complete_toolTailNote_isNotEchoed() throws Exception {
        assertThat(ask(RecoveryNotes.toolTailNote("next question"), new Chunks()).content())
                .contains("You said: \"next question\"").doesNotContain("System note");
    }

    @Test
    void complete_longMessage_isEchoedShortened() throws Exception {
        assertThat(ask("x".repeat(5_000), new Chunks()).content()).contains("x".repeat(200) + "…\"").doesNotContain("x".repeat(201));
    }

    @Test
    void complete_interruptRaised_stopsWithAnInterruptedFailure() {
        Interrupt interrupt = new Interrupt();
        interrupt.raise("/stop");

        try {
            demo.complete(ModelRequest.streaming(List.of(ChatMessage.user("hi"))), StreamObserver.NONE, interrupt);
            throw new AssertionError("expected an interrupt");
        } catch (ModelException e) {
            assertThat(e.isInterrupted()).isTrue();
        }
    }

    @Test
    void modelAgent_overTheDemoModel_endsFinalWithTheLabelledReply() {
        ModelAgent agent = new ModelAgent(demo);
        List<ChatMessage> stored = new ArrayList<>();

        TurnOutcome outcome = agent.runTurn(new TurnRequest("s", null, List.of(), "hi", true, "loopback"), stored::add, new Interrupt());

        assertThat(outcome).isInstanceOf(TurnOutcome.Final.class);
        assertThat(outcome.replyText()).startsWith("[demo model] You said: \"hi\"");
        assertThat(stored).containsExactly(ChatMessage.assistant(outcome.replyText()));
        assertThat(agent.describe()).isEqualTo("demo model");
        assertThat(TurnListener.NONE).isNotNull();
    }

    @Test
    void complete_echo_suggestsWhatTheDemoCanShow() throws Exception {
        assertThat(ask("hello", new Chunks()).content()).contains("list my files", "run a command", "show formatting");
    }

    @Test
    void complete_listMyFilesWhenListDirIsOffered_callsItOnTheConversationFolder() throws Exception {
        ModelRequest request = ModelRequest.streaming(List.of(ChatMessage.user("can you list my files?")))
                .withTools(List.of(dev.herald.agent.model.ToolSpec.of("list_dir", "lists", "{\"type\":\"object\"}")));

        ModelResponse response = demo.complete(request, new Chunks(), new Interrupt());

        assertThat(response.toolCalls()).singleElement().satisfies(c -> {
            assertThat(c.name()).isEqualTo("list_dir");
            assertThat(c.argumentsJson()).isEqualTo("{\"path\":\".\"}");
        });
        assertThat(response.content()).startsWith("[demo model] ");
        assertThat(demo.complete(request, new Chunks(), new Interrupt())).as("deterministic").isEqualTo(response);
    }

    @Test
    void complete_listMyFilesWithoutTheTool_saysItIsNotAvailable() throws Exception {
        ModelResponse response = ask("list my files", new Chunks());

        assertThat(response.hasToolCalls()).isFalse();
        assertThat(response.content()).startsWith("[demo model] ").contains("`list_dir`", "not available");
    }

    @Test
    void complete_showFormatting_answersInMarkdown() throws Exception {
        assertThat(ask("show formatting", new Chunks()).content()).startsWith("[demo model] ").contains("## Formatting", "**Bold**",
                "```python", "| Platform |");
    }

    @Test
    void complete_story_isStreamedInManyChunks() throws Exception {
        Chunks chunks = new Chunks();

        ModelResponse response = ask("tell me a story", chunks);

        assertThat(chunks.chunks).hasSizeGreaterThan(15);
        assertThat(String.join("", chunks.chunks)).isEqualTo(response.content()).startsWith("[demo model] Once upon a time");
    }
}
