package dev.herald.platforms.teams;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restarts and outages through Teams: an activity is stored before the Connector gets its 200 (else 503, and the
 * redelivery is answered once); a turn cut off by a crash is resumed once by the next process, which still knows the
 * conversation's serviceUrl from the store and replies to the same activity.
 */
class TeamsDeliveryTest {
    static final String ALICE = TeamsWebhookTest.ALICE;
    static final String CONVERSATION = "a:1" + ALICE.replace("-", "") + "personal";

    final FakeTeams teams = new FakeTeams();
    @RegisterExtension
    final GatewayFixture herald = teams.herald(ALICE);

    @Test
    void whileTheStoreCannotWrite_theRouteIs503_andTheRedeliveryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        String activity = teams.personal(ALICE, "1700000000200", "question").toString();

        assertThat(teams.post(activity)).as("not stored: the Connector must deliver it again").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(teams.post(activity)).isEqualTo(200);
        assertThat(teams.post(activity)).as("a second redelivery is a duplicate").isEqualTo(200);

        await().atMost(WAIT).until(() -> teams.messages().size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> teams.messages().size() == 1);
        assertThat(teams.messages().getFirst().text()).isEqualTo("echo: question");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        teams.post(teams.personal(ALICE, "1700000000201", "work on this").toString());
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> teams.messages().size() == 1);
        assertThat(teams.messages().getFirst().text()).isEqualTo("resumed after the crash");
        assertThat(teams.messages().getFirst().replyTo()).as("still a reply to the activity").isEqualTo("1700000000201");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aConversationHeraldNeverHeardFrom_cannotBeWritten_forWantOfItsServiceUrl() {
        herald.start();

        var result = herald.current.send(OutboundMessage.notice(ChatTarget.of("19:unknown@thread.v2"), "hello"));

        assertThat(result.success()).isFalse();
        assertThat(result.retryable()).isFalse();
        assertThat(result.error()).contains("no serviceUrl is known");
        assertThat(teams.posted).isEmpty();
        assertThat(CONVERSATION).isNotBlank();
    }
}
