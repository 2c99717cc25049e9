package dev.herald.platforms.line;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.Invariant;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restarts and outages through LINE: an event is stored before LINE gets its 200 (else 503, and the redelivery is
 * answered once); a turn cut off by a crash is resumed once by the next process; a push LINE took whose answer was lost
 * to a crash is retried with the same X-Line-Retry-Key, which LINE answers 409, so the chat sees it once; a reply-token
 * send lost the same way is pushed again (the reply API takes no retry key: at least once).
 */
class LineDeliveryTest {
    static final String ALICE = LineWebhookTest.ALICE;

    final FakeLine line = new FakeLine();
    @RegisterExtension
    final GatewayFixture herald = line.herald(ALICE);

    private TurnRecord onlyTurn(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void whileTheStoreCannotWrite_theWebhookIs503_andLinesRedeliveryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        var event = line.text(ALICE, "01HZX3A1000000000000000001", "question");

        assertThat(line.post(FakeLine.body(event))).as("not stored: LINE must deliver it again").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(line.post(FakeLine.body(FakeLine.redelivered(event)))).isEqualTo(200);
        assertThat(line.post(FakeLine.body(FakeLine.redelivered(event)))).as("a second redelivery is a duplicate").isEqualTo(200);

        await().atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 1);
        assertThat(line.chatWith(ALICE).getFirst().text()).isEqualTo("echo: question");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        line.post(FakeLine.body(line.text(ALICE, "01HZX3A1000000000000000002", "work on this")));
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> line.chatWith(ALICE).size() == 1);
        assertThat(line.chatWith(ALICE).getFirst()).extracting(FakeLine.Delivered::text, FakeLine.Delivered::via)
                .as("still with the event's reply token, which is fresh and unused").containsExactly("resumed after the crash", "reply");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aPushCutOffByACrashAfterLineTookIt_isRetriedWithTheSameRetryKey_andTheChatSeesItOnce() {
        line.settings = line.settings.withReplyWindowSeconds(0); // always push
        line.answerDelay = Duration.ofMillis(150);
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            line.post(FakeLine.body(line.text(ALICE, "01HZX3A1000000000000000003", "question")));
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn("question")).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);
        assertThat(line.chatWith(ALICE)).extracting(FakeLine.Delivered::text).as("exactly once").containsExactly("the answer");
        assertThat(line.retryKeys).as("the retry sent the stored part's key again").hasSize(2).containsOnly(line.retryKeys.getFirst());
        assertThat(line.refused).extracting(FakeLine.Refused::status).containsExactly(409);
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    @Test
    void aReplyTokenSendCutOffByACrash_isPushedAgainAfterTheRestart_atLeastOnce() {
        line.answerDelay = Duration.ofMillis(150);
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "the reply API takes no retry key: the part in doubt after the crash "
                + "reaches the chat twice by design (at least once)");
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            line.post(FakeLine.body(line.text(ALICE, "01HZX3A1000000000000000004", "question")));
            await().atMost(WAIT).until(crash::fired);
        }
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);
        assertThat(line.chatWith(ALICE)).extracting(FakeLine.Delivered::via, FakeLine.Delivered::text)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("reply", "the answer"), org.assertj.core.groups.Tuple.tuple("push", "the answer"));
        assertThat(line.refused).as("the spent token was not tried again").isEmpty();
    }
}
