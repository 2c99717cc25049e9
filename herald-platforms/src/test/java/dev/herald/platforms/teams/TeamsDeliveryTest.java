package dev.herald.platforms.teams;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.CrashPoints;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.Invariant;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restarts and outages through Teams: an activity is stored before the Connector gets its 200 (else 503, and the
 * redelivery is answered once); a turn cut off by a crash is resumed once by the next process, which still knows the
 * conversation's serviceUrl from the store and replies to the same activity; a reply whose answer was lost to a crash
 * goes out once more (at least once); refused app credentials stop the start.
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
    void aCrashBetweenSendAndAnswer_sendsTheReplyOnceMore_afterTheRestart() {
        teams.answerDelay = Duration.ofMillis(150);
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "the Connector has no idempotency key: the reply, in doubt after the crash, "
                + "reaches the chat twice by design (at least once)");
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            teams.post(teams.personal(ALICE, "1700000000202", "question").toString());
            await().atMost(WAIT).until(crash::fired);
        }
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> herald.turns().stream().anyMatch(t -> t.text().equals("question") && t.state() == TurnState.DELIVERED));
        assertThat(teams.messages()).extracting(FakeTeams.Posted::text).as("at least once: the part in doubt went out again")
                .containsExactly("the answer", "the answer");
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    @Test
    void refusedCredentials_stopTheStart_namingTheKeys_neverThePassword() {
        TeamsSettings wrong = TeamsSettings.of(FakeTeams.APP_ID, "not-the-password", teams.baseUrl() + "/token", teams.baseUrl() + "/openid",
                List.of(teams.baseUrl()));
        TeamsAdapter adapter = new TeamsAdapter(wrong, FakeTeams.timing(), Clock.systemUTC(), herald.storage.platformState());

        assertThatThrownBy(() -> adapter.start(new RecordingSink())).hasMessageContaining("invalid_client")
                .hasMessageContaining("check platforms.teams.app_id and platforms.teams.app_password").hasMessageNotContaining("not-the-password");
        adapter.close();
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
