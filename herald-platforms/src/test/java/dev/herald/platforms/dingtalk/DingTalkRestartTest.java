package dev.herald.platforms.dingtalk;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restart guarantees through DingTalk: a crash during a turn is resumed by the next process and answered exactly once
 * (through the send API: the session webhook lived in the dead process's memory), and while the store cannot write a
 * robot message is not acknowledged; DingTalk's redelivery once it writes again is answered once.
 */
class DingTalkRestartTest {
    final FakeDingTalk dingtalk = new FakeDingTalk();
    @RegisterExtension
    final GatewayFixture herald = dingtalk.herald("staff1");

    @Test
    void aRestartDuringAHeldTurn_tellsTheChatAndTheHomeGroup_thenTheNextProcessAnswersOnce() {
        herald.home(new HomeChannel(DingTalkAdapter.PLATFORM, ChatTarget.of("cidHome_1=="), "ops"));
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("never finished");
        dingtalk.deliver(dingtalk.dm("m-held", "staff1", "a long job", Instant.now().plusSeconds(3600)));
        hold.awaitArrival(WAIT);

        herald.stop(StopKind.RESTART);

        String banner = StopKind.RESTART.banner();
        assertThat(dingtalk.sentTo("S-m-held")).as("through the live session webhook").extracting(FakeDingTalk.Sent::text)
                .containsExactly(banner);
        assertThat(dingtalk.sentTo("cidHome/1==")).as("the home group, by its openConversationId").extracting(FakeDingTalk.Sent::text)
                .containsExactly(banner);

        herald.nextProcess();
        herald.agent.reply("picking up where we left off");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> dingtalk.sentTo("staff1").size() == 1);
        assertThat(dingtalk.sentTo("staff1").getFirst().text()).isEqualTo("picking up where we left off");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        String frame = dingtalk.deliver(dingtalk.dm("m-crash", "staff1", "work on this", Instant.now().plusSeconds(3600)));
        hold.awaitArrival(WAIT);
        assertThat(dingtalk.ackOf(frame)).as("acknowledged once stored, before the turn ran").isNotNull();

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();
        // DingTalk pushes the message again on the new connection, as it may: the gateway drops it by msgId
        String again = dingtalk.deliver(dingtalk.dm("m-crash", "staff1", "work on this", Instant.now().plusSeconds(3600)));

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.sent.getFirst()).satisfies(s -> {
            assertThat(s.text()).isEqualTo("resumed after the crash");
            assertThat(s.via()).isEqualTo("dm");
        });
        assertThat(dingtalk.ackOf(again)).isNotNull();
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void whileTheStoreCannotWrite_aMessageIsNotAcknowledged_andItsRedeliveryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        var message = dingtalk.dm("m-full", "staff1", "question", Instant.now().plusSeconds(3600));

        String first = dingtalk.deliver(message);
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> dingtalk.ackOf(first) == null);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        String retry = dingtalk.deliver(message);

        await().atMost(WAIT).until(() -> dingtalk.ackOf(retry) != null);
        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.sent).extracting(FakeDingTalk.Sent::text).containsExactly("echo: question");
        assertThat(dingtalk.ackOf(first)).isNull();
    }
}
