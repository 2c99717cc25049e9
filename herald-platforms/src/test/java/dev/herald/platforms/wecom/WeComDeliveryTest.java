package dev.herald.platforms.wecom;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The restart guarantees: a message the store cannot take is answered 503 (WeCom retries any non-200) and its retry is
 * answered once; a turn cut off by a crash is resumed once by the next process and answered exactly once.
 */
class WeComDeliveryTest {
    static final String ZHANG = WeComCallbackTest.ZHANG;

    final FakeWeCom wecom = new FakeWeCom();
    @RegisterExtension
    final GatewayFixture herald = wecom.herald(ZHANG);

    @Test
    void whileTheStoreCannotWrite_theCallbackIs503_andWeComsRetryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        String msg = FakeWeCom.text(ZHANG, "7340005541298300001", "question");

        assertThat(wecom.post(msg)).as("not stored: WeCom must retry").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(wecom.post(msg)).isEqualTo(200);
        assertThat(wecom.post(msg)).as("a second retry is a duplicate").isEqualTo(200);

        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);
        assertThat(wecom.sentTo(ZHANG).getFirst().content()).isEqualTo("echo: question");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        wecom.post(FakeWeCom.text(ZHANG, "7340005541298300002", "work on this"));
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();
        assertThat(wecom.post(FakeWeCom.text(ZHANG, "7340005541298300002", "work on this"))).as("WeCom's retry after the crash")
                .isEqualTo(200);

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> wecom.sentTo(ZHANG).size() == 1);
        assertThat(wecom.sentTo(ZHANG).getFirst().content()).isEqualTo("resumed after the crash");
        assertThat(herald.agent.calls()).hasSize(1);
    }
}
