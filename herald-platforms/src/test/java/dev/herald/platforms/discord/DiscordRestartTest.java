package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Continuity through Discord: the stop notices reach the fake (spec E2, E3), and interrupted turns come back once. */
class DiscordRestartTest {
    final FakeDiscord discord = new FakeDiscord();
    @RegisterExtension
    final GatewayFixture herald = discord.herald("u1");

    @BeforeEach
    void setUp() {
        discord.thread("thread-7", "general-1", "planning");
    }

    @Test
    void E2_E3_aRestartDuringAHeldTurn_tellsTheActiveThreadAndTheHomeChannel_thenTheNextProcessResumesTheThreadOnce() {
        herald.home(new HomeChannel(DiscordAdapter.PLATFORM, ChatTarget.of("general-1"), "general"));
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("never finished");
        discord.message("7001", "thread-7", FakeDiscord.GUILD, "u1", "a long job in the thread");
        hold.awaitArrival(WAIT);

        herald.stop(StopKind.RESTART);

        String banner = StopKind.RESTART.banner();
        assertThat(discord.postsTo("thread-7")).extracting(FakeDiscord.Post::content).containsExactly(banner);
        assertThat(discord.postsTo("general-1")).extracting(FakeDiscord.Post::content).containsExactly(banner);

        herald.nextProcess();
        herald.agent.reply("picking up where we left off");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> discord.postsTo("thread-7").size() == 2);
        assertThat(discord.postsTo("thread-7").get(1).content()).isEqualTo("picking up where we left off");
        assertThat(discord.postsTo("thread-7").get(1).replyTo()).as("the resumed answer replies to the message it continues").isEqualTo("7001");
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(discord.postsTo("general-1")).as("the home channel hears nothing more").hasSize(1);
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        discord.message("7101", "dm-1", null, "u1", "work on this");
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(discord.postsTo("dm-1").getFirst().content()).isEqualTo("resumed after the crash");
        assertThat(discord.postsTo("dm-1").getFirst().replyTo()).as("the resumed answer replies to the message it continues").isEqualTo("7101");
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(discord.sent(2)).as("the new process identifies afresh").hasSize(2);
    }
}
