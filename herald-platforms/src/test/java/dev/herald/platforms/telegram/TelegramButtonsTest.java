package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.telegram.FakeBotApi.Call;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Approvals as inline buttons and {@code require_mention} in groups, against the local Bot API fake: the question
 * carries Approve / Always / Deny; a press is the presser's command (so only someone allowed decides, once, even when
 * pressed twice or redelivered after a restart), is answered, and the question is edited to show who decided.
 */
class TelegramButtonsTest {
    private static final String TOKEN = "4242:fake-secret-token";
    private static final long ALICE = 100;
    private static final long BOB = 200;
    private static final long GROUP = -100555;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    private final AtomicInteger toolRuns = new AtomicInteger();
    private final List<ApprovalDecision> decisions = new CopyOnWriteArrayList<>();
    private final List<String> heard = new CopyOnWriteArrayList<>();

    /** Asks to run a dangerous command when told to "clean up" (and runs it when approved); echoes anything else. */
    private final Agent asking = new Agent() {
        @Override
        public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
            heard.add(request.userMessage());
            String reply;
            if (request.userMessage().equals("clean up")) {
                ApprovalDecision d = listener.requestApproval(new ApprovalRequest("call_1", "shell", "rm -rf build", "runs a shell command"));
                decisions.add(d);
                if (d.approved()) {
                    toolRuns.incrementAndGet();
                }
                reply = d.approved() ? "ran it" : "did not run it";
            } else {
                reply = "echo: " + request.userMessage();
            }
            listener.onMessage(ChatMessage.assistant(reply));
            return new TurnOutcome.Final(reply);
        }

        @Override
        public String describe() {
            return "asking agent";
        }
    };

    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(ALICE)).agentOverride(asking).closing(fake);

    private Call awaitPrompt() {
        await().atMost(WAIT).until(() -> fake.calls("sendMessage").stream().anyMatch(c -> c.body().has("reply_markup")));
        return fake.calls("sendMessage").stream().filter(c -> c.body().has("reply_markup")).findFirst().orElseThrow();
    }

    private List<String> sentTexts() {
        return fake.calls("sendMessage").stream().map(c -> c.body().path("text").asText()).toList();
    }

    @Test
    void theQuestionHasButtons_aPressApprovesOnce_andTheQuestionShowsWhoDecided_evenWhenPressedTwice() throws Exception {
        h.start();
        fake.userSays(ALICE, "clean up");

        Call prompt = awaitPrompt();
        var keyboard = prompt.body().path("reply_markup").path("inline_keyboard").path(0);
        assertThat(keyboard.findValuesAsText("text")).containsExactly("Approve", "Always", "Deny");
        assertThat(keyboard.findValuesAsText("callback_data")).containsExactly("/approve", "/approve always", "/deny");
        assertThat(prompt.body().path("text").asText()).contains("rm -rf build");

        ObjectNode first = fake.pressButton(ALICE, prompt, "/approve");
        ObjectNode second = fake.pressButton(ALICE, prompt, "/approve");

        await().atMost(WAIT).until(() -> sentTexts().contains("ran it"));
        await().atMost(WAIT).until(() -> fake.calls("answerCallbackQuery").size() == 2);
        Thread.sleep(300);
        assertThat(toolRuns).as("the tool ran once").hasValue(1);
        assertThat(decisions).containsExactly(ApprovalDecision.APPROVED_ONCE);
        assertThat(fake.calls("answerCallbackQuery")).extracting(c -> c.body().path("callback_query_id").asText())
                .containsExactly(first.path("callback_query").path("id").asText(), second.path("callback_query").path("id").asText());
        assertThat(fake.calls("answerCallbackQuery").getFirst().body().path("text").asText()).isEqualTo("Approve: received");

        List<Call> edits = fake.calls("editMessageText");
        assertThat(edits).as("one decision, shown once").hasSize(1);
        Call edit = edits.getFirst();
        assertThat(edit.body().path("message_id").asLong()).isEqualTo(prompt.answer().path("result").path("message_id").asLong());
        assertThat(edit.body().path("text").asText()).contains("rm -rf build").endsWith("Decided by U100: \u2705 Approved.")
                .doesNotContain("Reply /approve");
        assertThat(edit.body().path("reply_markup").path("inline_keyboard")).as("buttons removed").isEmpty();
        assertThat(sentTexts()).as("no second decision in the chat").noneMatch(t -> t.contains("Approved"));
    }

    @Test
    void aPressBySomeoneNotAllowed_decidesNothing_andAnAllowedPressDoes() throws Exception {
        h.start();
        fake.userSays(ALICE, "@herald_test_bot clean up", m -> m.withObject("chat").put("id", GROUP).put("type", "supergroup"));
        Call prompt = awaitPrompt();
        assertThat(heard).containsExactly("clean up");

        fake.pressButton(BOB, prompt, "/approve");
        await().atMost(WAIT).until(() -> fake.calls("answerCallbackQuery").size() == 1);
        Thread.sleep(300);
        assertThat(decisions).as("still waiting").isEmpty();
        assertThat(fake.calls("editMessageText")).isEmpty();

        fake.pressButton(ALICE, prompt, "/deny");
        await().atMost(WAIT).until(() -> sentTexts().contains("did not run it"));
        assertThat(decisions).containsExactly(ApprovalDecision.DENIED);
        assertThat(toolRuns).hasValue(0);
        assertThat(fake.calls("editMessageText").getFirst().body().path("text").asText()).endsWith("Decided by U100: \u274c Denied.");
    }

    @Test
    void aPressRedeliveredAfterARestart_isAnsweredOnce() throws Exception {
        h.start();
        fake.userSays(ALICE, "clean up");
        Call prompt = awaitPrompt();
        ObjectNode press = fake.pressButton(ALICE, prompt, "/approve always");
        await().atMost(WAIT).until(() -> sentTexts().contains("ran it"));
        assertThat(fake.calls("editMessageText").getFirst().body().path("text").asText())
                .endsWith("Decided by U100: \u2705 Approved (and from now on for this tool in this session).");
        h.stop(StopKind.SHUTDOWN);
        int sent = fake.calls("sendMessage").size();

        fake.redeliver(press);
        h.restart();
        await().atMost(WAIT).until(() -> fake.calls("answerCallbackQuery").size() == 2);
        Thread.sleep(300);

        assertThat(fake.calls("sendMessage")).as("no answer to the redelivered press").hasSize(sent);
        assertThat(fake.calls("answerCallbackQuery").get(1).body().path("text").asText()).contains("closed").contains("nothing was decided");
        assertThat(fake.calls("editMessageText")).hasSize(1);
        assertThat(toolRuns).hasValue(1);
        assertThat(decisions).containsExactly(ApprovalDecision.APPROVED_ALWAYS);
    }

    @Test
    void inAGroup_onlyMentionsRepliesAndCommandsAreAnswered_andPrivateChatsAlways() throws Exception {
        h.start();
        java.util.function.Consumer<ObjectNode> inGroup = m -> m.withObject("chat").put("id", GROUP).put("type", "group");

        fake.userSays(ALICE, "talking among ourselves", inGroup);
        fake.userSays(ALICE, "hey @herald_test_bot what time is it?", inGroup);
        await().atMost(WAIT).until(() -> sentTexts().size() == 1);
        long botMessage = fake.calls("sendMessage").getFirst().answer().path("result").path("message_id").asLong();
        fake.userSays(ALICE, "and in Tokyo?", m -> {
            inGroup.accept(m);
            m.putObject("reply_to_message").put("message_id", botMessage).putObject("from").put("id", 42).put("is_bot", true);
        });
        fake.userSays(ALICE, "ask @herald_test_bot_2 instead", inGroup);
        fake.userSays(ALICE, "Herald, hello", m -> {
            inGroup.accept(m);
            m.putArray("entities").addObject().put("type", "text_mention").put("offset", 0).put("length", 6).putObject("user").put("id", 42);
        });
        fake.userSays(ALICE, "/status@herald_test_bot", inGroup);
        fake.userSays(ALICE, "just me here");

        await().atMost(WAIT).until(() -> heard.size() == 4 && sentTexts().size() == 5);
        Thread.sleep(300);
        assertThat(heard).containsExactlyInAnyOrder("hey what time is it?", "and in Tokyo?", "hello", "just me here");
        assertThat(sentTexts()).hasSize(5).anyMatch(t -> !t.startsWith("echo: "));
    }
}
