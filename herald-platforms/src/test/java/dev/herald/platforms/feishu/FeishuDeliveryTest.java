package dev.herald.platforms.feishu;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The restart guarantees: an event the store cannot take is answered 503 (the platform delivers it again) and its
 * redelivery is answered once; a turn cut off by a crash is resumed once by the next process and answered exactly once; a
 * part the platform took whose answer was lost to a crash is sent again with the same uuid, which the platform answers
 * with the first message, so the chat sees it once.
 */
class FeishuDeliveryTest {
    static final String ALICE = FeishuCallbackTest.ALICE;
    static final String DM = FeishuCallbackTest.DM;

    final FakeFeishu feishu = new FakeFeishu();
    @RegisterExtension
    final GatewayFixture herald = feishu.herald(ALICE);

    @Test
    void whileTheStoreCannotWrite_theEventIs503_andItsRedeliveryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        String event = FakeFeishu.text("ev-d-1", "om_d00000000000000000000000000001", DM, "p2p", ALICE, "question");

        assertThat(feishu.post(event)).as("not stored: the platform must deliver it again").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(feishu.post(event)).isEqualTo(200);
        assertThat(feishu.post(event)).as("a second redelivery is a duplicate").isEqualTo(200);

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("echo: question");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        String event = FakeFeishu.text("ev-d-2", "om_d00000000000000000000000000002", DM, "p2p", ALICE, "work on this");
        feishu.post(event);
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();
        assertThat(feishu.post(event)).as("the platform's redelivery after the crash").isEqualTo(200);

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("resumed after the crash");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aSendCutOffByACrashAfterThePlatformTookIt_isSentAgainWithTheSameUuid_andTheChatSeesItOnce() {
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            feishu.post(FakeFeishu.text("ev-d-3", "om_d00000000000000000000000000003", DM, "p2p", ALICE, "question"));
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn("question")).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);
        assertThat(feishu.sentTo(DM)).extracting(FakeFeishu.Sent::text).as("exactly once").containsExactly("the answer");
        assertThat(feishu.uuids).as("the resend carried the stored part's uuid again").hasSize(2).containsOnly(feishu.uuids.getFirst());
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    private TurnRecord onlyTurn(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }
}
