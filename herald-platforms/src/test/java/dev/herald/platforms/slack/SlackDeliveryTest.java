package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.gateway.Invariant;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Delivery semantics on Slack, which has no idempotency key for chat.postMessage: a reply Slack took whose answer was
 * not recorded before a crash is posted once more after the restart (at least once), never generated again.
 */
class SlackDeliveryTest {
    final FakeSlack slack = new FakeSlack();
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1");

    private TurnRecord onlyTurn() {
        return herald.turns().stream().filter(t -> t.text().equals("question")).findFirst().orElseThrow();
    }

    @Test
    void aCrashBetweenSendAndAnswer_postsTheReplyOnceMore_afterTheRestart() {
        slack.answerDelay = Duration.ofMillis(150);
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "Slack has no idempotency key: the reply, in doubt after the crash, "
                + "reaches the chat twice by design (at least once)");
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            slack.deliver(slack.message("D1", "im", "U1", "1712000301.000100", null, "question"));
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn()).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn().state() == TurnState.DELIVERED);
        assertThat(slack.postsIn("D1", null)).extracting(FakeSlack.Post::text).as("at least once: the part in doubt went out again")
                .containsExactly("the answer", "the answer");
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
