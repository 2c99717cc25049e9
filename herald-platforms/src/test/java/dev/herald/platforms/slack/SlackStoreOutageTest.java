package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * While the store cannot write (a full disk), an envelope is not acknowledged, so Slack delivers it again; the retry
 * that comes once the store writes again is stored and answered, once.
 */
class SlackStoreOutageTest {
    final FakeSlack slack = new FakeSlack();
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1");

    @Test
    void envelopeWhileTheDiskIsFull_isNotAcknowledged_andItsRetryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        var event = slack.message("D1", "im", "U1", "1712000301.000100", null, "question");

        String first = slack.deliver(event);
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> !slack.acks.contains(first));
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        String retry = slack.deliver(event, 1); // Slack's retry of the unacknowledged envelope

        await().atMost(WAIT).until(() -> slack.acks.contains(retry));
        await().atMost(WAIT).until(() -> slack.postsIn("D1", null).size() == 1);
        assertThat(slack.postsIn("D1", null)).extracting(FakeSlack.Post::text).containsExactly("echo: question");
        assertThat(slack.acks).doesNotContain(first);
    }
}
