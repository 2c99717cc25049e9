package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.gateway.StopKind;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.StreamingToolAgent;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Approval questions as Slack Block Kit buttons, end to end: the agent asks to run a tool, the question arrives with
 * three buttons, a press comes over Socket Mode as block_actions and is the presser's command, and the question is
 * updated to show who decided.
 */
class SlackButtonsTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeSlack slack = new FakeSlack();
    final StreamingToolAgent agent = StreamingToolAgent.askingApproval("Let me ", "clean up.");
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1", "U2").agentOverride(agent);

    @Test
    void aPressedApproveButton_runsTheToolOnce_andTheQuestionShowsWhoApproved_withoutButtons() {
        herald.start();
        slack.deliver(slack.message("D1", "im", "U1", "1712000101.000100", null, "clean the build"));
        FakeSlack.Post question = question("D1");

        assertThat(actions(slack.shown(question.ts())).findValuesAsText("value")).containsExactly("/approve", "/approve always", "/deny");
        ObjectNode press = slack.press(question.ts(), "U1", "herald_approve", "/approve");

        await().atMost(WAIT).until(() -> agent.toolRuns.get() == 1 && finalShown("D1"));
        JsonNode shown = slack.shown(question.ts());
        assertThat(shown.path("text").asText()).contains("rm -rf build").endsWith("\u2705 Approved by <@U1>").doesNotContain("Reply /approve");
        assertThat(actions(shown)).as("the buttons are gone").isNull();
        assertThat(shown.path("blocks").findValuesAsText("text").toString()).contains("\u2705 Approved by <@U1>");
        assertThat(slack.acks).contains(press.path("envelope_id").asText());
        assertThat(slack.postsIn("D1", null)).as("the draft (now the answer) and the question; no separate confirmation").hasSize(2);
        assertThat(slack.ephemerals).isEmpty();
    }

    @Test
    void aButtonPressedTwice_decidesOnce_andAPressRedeliveredAfterARestart_isNotAnsweredAgain() {
        herald.start();
        slack.deliver(slack.message("D1", "im", "U1", "1712000201.000100", null, "clean the build"));
        FakeSlack.Post question = question("D1");

        ObjectNode first = slack.press(question.ts(), "U1", "herald_approve", "/approve");
        slack.press(question.ts(), "U1", "herald_deny", "/deny");

        await().atMost(WAIT).until(() -> slack.ephemeralsTo("U1").size() == 1 && finalShown("D1"));
        assertThat(slack.ephemeralsTo("U1")).singleElement().extracting(FakeSlack.Ephemeral::text).isEqualTo(SlackPresses.ALREADY_ANSWERED);
        assertThat(agent.toolRuns).hasValue(1);
        assertThat(slack.shown(question.ts()).path("text").asText()).endsWith("\u2705 Approved by <@U1>");

        herald.stop(StopKind.RESTART);
        herald.restart();
        int updates = slack.updates.size();
        int posts = slack.posts.size();
        slack.redeliver(first);

        await().atMost(WAIT).until(() -> slack.acks.stream().filter(first.path("envelope_id").asText()::equals).count() == 2);
        await().atMost(WAIT).during(SETTLE).until(() -> slack.updates.size() == updates && slack.posts.size() == posts);
        assertThat(slack.ephemerals).hasSize(1);
        assertThat(agent.toolRuns).hasValue(1);
        assertThat(agent.decisions).hasSize(1);
    }

    @Test
    void aPressBySomeoneNotAllowed_decidesNothing_andSomeoneAllowedInTheThreadDecides() {
        herald.start();
        String top = "1712000301.000100";
        slack.deliver(slack.message("C1", "channel", "U1", top, null, "<@" + FakeSlack.BOT_USER + "> clean the build"));
        FakeSlack.Post question = question("C1");
        assertThat(question.threadTs()).isEqualTo(top);

        slack.press(question.ts(), "UINTRUDER", "herald_approve", "/approve");
        slack.press(question.ts(), "U1", "herald_restart", "/restart");
        await().atMost(WAIT).until(() -> slack.ephemeralsTo("UINTRUDER").size() == 1);

        assertThat(slack.ephemeralsTo("UINTRUDER")).singleElement().satisfies(e -> {
            assertThat(e.text()).isEqualTo(SlackPresses.NOT_ALLOWED);
            assertThat(e.threadTs()).isEqualTo(top);
        });
        assertThat(actions(slack.shown(question.ts()))).as("the question is still open").isNotNull();
        assertThat(agent.toolRuns).hasValue(0);

        slack.press(question.ts(), "U2", "herald_deny", "/deny");

        await().atMost(WAIT).until(() -> finalShown("C1"));
        assertThat(slack.shown(question.ts()).path("text").asText()).endsWith("\u274c Denied by <@U2>");
        assertThat(agent.toolRuns).hasValue(0);
        assertThat(agent.decisions).hasSize(1);
        assertThat(slack.ephemeralsTo("U1")).as("a button Herald never made is ignored").isEmpty();
    }

    /** The approval question posted in {@code channel}: the message with an actions block. */
    private FakeSlack.Post question(String channel) {
        await().atMost(WAIT).until(() -> withButtons(channel).isPresent());
        return withButtons(channel).orElseThrow();
    }

    private Optional<FakeSlack.Post> withButtons(String channel) {
        return slack.posts.stream().filter(p -> p.channel().equals(channel) && actions(slack.shown(p.ts())) != null).findFirst();
    }

    private static JsonNode actions(JsonNode message) {
        return StreamSupport.stream(message.path("blocks").spliterator(), false).filter(b -> "actions".equals(b.path("type").asText()))
                .findFirst().orElse(null);
    }

    /** Whether the turn's final answer is shown in {@code channel}. */
    private boolean finalShown(String channel) {
        List<String> texts = slack.posts.stream().filter(p -> p.channel().equals(channel)).map(p -> slack.shown(p.ts()).path("text").asText())
                .toList();
        return texts.contains(StreamingToolAgent.DONE) || texts.contains(StreamingToolAgent.NOT_RUN);
    }
}
