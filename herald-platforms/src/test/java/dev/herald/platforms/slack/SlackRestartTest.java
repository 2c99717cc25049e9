package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Continuity through Slack: the stop notices reach the fake (spec E2, E3), and interrupted turns come back once. */
class SlackRestartTest {
    private static final String TOP = "1712000201.000100";

    final FakeSlack slack = new FakeSlack();
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1");

    @Test
    void E2_E3_aRestartDuringAHeldTurn_tellsTheActiveThreadAndTheHomeChannel_thenTheNextProcessResumesTheThreadOnce() {
        herald.home(new HomeChannel(SlackAdapter.PLATFORM, ChatTarget.of("CHOME"), "ops"));
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("never finished");
        slack.deliver(slack.message("C1", "channel", "U1", TOP, null, "<@" + FakeSlack.BOT_USER + "> a long job"));
        hold.awaitArrival(WAIT);

        herald.stop(StopKind.RESTART);

        String banner = StopKind.RESTART.banner();
        assertThat(slack.postsIn("C1", TOP)).extracting(FakeSlack.Post::text).containsExactly(banner);
        assertThat(slack.postsIn("CHOME", null)).extracting(FakeSlack.Post::text).containsExactly(banner);

        herald.nextProcess();
        herald.agent.reply("picking up where we left off");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> slack.postsIn("C1", TOP).size() == 2);
        assertThat(slack.postsIn("C1", TOP).get(1).text()).isEqualTo("picking up where we left off");
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(slack.postsIn("CHOME", null)).hasSize(1);
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        slack.deliver(slack.message("D1", "im", "U1", "1712000202.000100", null, "work on this"));
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> slack.postsIn("D1", null).size() == 1);
        assertThat(slack.postsIn("D1", null).getFirst().text()).isEqualTo("resumed after the crash");
        assertThat(herald.agent.calls()).hasSize(1);
    }
}
