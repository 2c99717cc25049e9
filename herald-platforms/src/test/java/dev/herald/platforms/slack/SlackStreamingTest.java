package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.StreamingToolAgent;
import dev.herald.platforms.common.EditedDrafts;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Replies streamed on Slack: one message posted at the first text and updated as the turn writes, then the answer. */
class SlackStreamingTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeSlack slack = new FakeSlack();
    Duration editInterval = Duration.ofMillis(50);
    boolean streaming = true;
    @RegisterExtension
    final GatewayFixture herald = slack.herald(() -> FakeSlack.timing(editInterval), () -> streaming, "U1");

    @Test
    void aReplyBeingWrittenInAThread_isOneMessageUpdatedAsItGrows_andTheAnswerReplacesItWithoutASecondMessage() {
        // each piece comes later than the edit interval after the one before, so each is shown
        herald.agentOverride(StreamingToolAgent.writing(Duration.ofMillis(80), "Hello", " there,", " world.")).start();
        String top = "1712000401.000100";

        slack.deliver(slack.message("C1", "channel", "U1", top, null, "<@" + FakeSlack.BOT_USER + "> say hello"));

        await().atMost(WAIT).until(() -> slack.updates.size() == 3);
        await().during(SETTLE).atMost(WAIT).until(() -> slack.posts.size() == 1 && slack.updates.size() == 3);
        FakeSlack.Post draft = slack.posts.getFirst();
        assertThat(draft.threadTs()).as("in the thread under the question").isEqualTo(top);
        assertThat(draft.text()).isEqualTo("Hello" + EditedDrafts.CURSOR);
        assertThat(slack.updates).allSatisfy(u -> assertThat(u.ts()).isEqualTo(draft.ts())).extracting(FakeSlack.Update::text)
                .containsExactly("Hello there," + EditedDrafts.CURSOR, "Hello there, world." + EditedDrafts.CURSOR, "Hello there, world.");
        assertThat(slack.shown(draft.ts()).path("text").asText()).isEqualTo("Hello there, world.");
    }

    @Test
    void updatesAreHeldToTheInterval_soTextWrittenFasterIsShownAtTheNextUpdateOrWithTheAnswer() {
        editInterval = Duration.ofHours(1);
        herald.agentOverride(StreamingToolAgent.writing(Duration.ZERO, "one ", "two ", "three ", "four ", "five")).start();

        slack.deliver(slack.message("D1", "im", "U1", "1712000501.000100", null, "count to five"));

        await().atMost(WAIT).until(() -> slack.updates.size() == 1);
        await().during(SETTLE).atMost(WAIT).until(() -> slack.posts.size() == 1 && slack.updates.size() == 1);
        assertThat(slack.posts.getFirst().text()).isEqualTo("one" + EditedDrafts.CURSOR);
        assertThat(slack.updates.getFirst().text()).as("only the answer updates it").isEqualTo("one two three four five");
    }

    @Test
    void withStreamingOff_theAnswerIsOneMessage_andNothingIsUpdated() {
        streaming = false;
        herald.agentOverride(StreamingToolAgent.writing(Duration.ZERO, "quiet ", "answer")).start();

        slack.deliver(slack.message("D1", "im", "U1", "1712000601.000100", null, "answer quietly"));

        await().during(SETTLE).atMost(WAIT).until(() -> slack.posts.size() == 1);
        assertThat(slack.posts.getFirst().text()).isEqualTo("quiet answer");
        assertThat(slack.updates).isEmpty();
        assertThat(herald.current.capabilities().streaming()).isFalse();
    }
}
