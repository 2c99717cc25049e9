package dev.herald.platforms.feishu;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The restart guarantees: an event the store cannot take is answered 503 (the platform delivers it again) and its
 * redelivery is answered once; a turn cut off by a crash is resumed once by the next process and answered exactly once.
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
}
