package dev.herald.platforms.ntfy;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The restart guarantees: a message that arrives while the store cannot write is read again from the stream once it can
 * (answered once); a turn cut off by a crash is resumed once by the next process and answered exactly once; a restart's
 * notice reaches the home channel's topic.
 */
class NtfyDeliveryTest {
    static final String TOPIC = FakeNtfy.TOPIC;

    final FakeNtfy ntfy = new FakeNtfy();
    @RegisterExtension
    final GatewayFixture herald = ntfy.herald();

    private long answers(String text) {
        return ntfy.byHerald(TOPIC).stream().filter(m -> m.text().equals(text)).count();
    }

    @Test
    void whileTheStoreCannotWrite_theMessageIsReadAgainLater_andAnsweredOnce() {
        herald.start();
        herald.fillDisk();

        ntfy.userPublishes(TOPIC, "question", null);
        await().atMost(WAIT).until(() -> ntfy.subscriptions.size() >= 3); // held, stream reopened from before it, more than once
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();

        await().atMost(WAIT).until(() -> answers("echo: question") == 1);
        await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> answers("echo: question") == 1);
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        ntfy.userPublishes(TOPIC, "work on this", null);
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).until(() -> answers("resumed after the crash") == 1);
        await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aRestartDuringATurn_isAnnouncedOnTheHomeTopic_andTheTurnIsAnsweredOnceAfter() {
        herald.home(new dev.herald.core.platform.HomeChannel(NtfyAdapter.PLATFORM, dev.herald.core.platform.ChatTarget.of("herald_home_7c1f"),
                "phone"));
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("never finished");
        ntfy.userPublishes(TOPIC, "a long job", null);
        hold.awaitArrival(WAIT);

        herald.stop(dev.herald.core.gateway.StopKind.RESTART);
        String banner = dev.herald.core.gateway.StopKind.RESTART.banner();
        await().atMost(WAIT).until(() -> ntfy.byHerald("herald_home_7c1f").size() == 1);
        assertThat(ntfy.byHerald("herald_home_7c1f").getFirst().text()).isEqualTo(banner);
        assertThat(ntfy.byHerald("herald_home_7c1f").getFirst().json().path("tags").get(0).asText()).isEqualTo("robot");

        herald.nextProcess();
        herald.agent.reply("picking up where we left off");
        herald.start();

        await().atMost(WAIT).until(() -> answers("picking up where we left off") == 1);
        await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> answers("picking up where we left off") == 1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(ntfy.byHerald("herald_home_7c1f")).as("the home topic hears nothing more").hasSize(1);
    }
}
