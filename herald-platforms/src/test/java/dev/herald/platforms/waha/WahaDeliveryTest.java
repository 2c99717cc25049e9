package dev.herald.platforms.waha;

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
 * Restarts and outages through WAHA: a message is stored before WAHA gets its 200 (else 503, and WAHA's retry is
 * answered once); a turn cut off by a crash is resumed once by the next process; a reply WAHA took whose answer was lost
 * to a crash is sent once more (WAHA's send has no idempotency key: at least once), never generated again.
 */
class WahaDeliveryTest {
    static final String ALICE = WahaWebhookTest.ALICE;
    static final String CHAT = ALICE + "@c.us";

    final FakeWaha waha = new FakeWaha();
    @RegisterExtension
    final GatewayFixture herald = waha.herald(ALICE);

    private TurnRecord onlyTurn(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void whileTheStoreCannotWrite_theWebhookIs503_andWahasRetryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        String body = FakeWaha.message(FakeWaha.dm(ALICE, "3EB0DISK", "question"));

        assertThat(waha.post(body)).as("not stored: WAHA must deliver it again").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(waha.post(body)).isEqualTo(200);
        assertThat(waha.post(body)).as("a second retry is a duplicate").isEqualTo(200);

        await().atMost(WAIT).until(() -> waha.sentTo(CHAT).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> waha.sentTo(CHAT).size() == 1);
        assertThat(waha.sentTo(CHAT).getFirst().text()).isEqualTo("echo: question");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        String body = FakeWaha.message(FakeWaha.dm(ALICE, "3EB0CRSH", "work on this"));
        waha.post(body);
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();
        assertThat(waha.post(body)).as("WAHA retrying the same event after the restart: a duplicate").isEqualTo(200);

        await().atMost(WAIT).during(Duration.ofMillis(400)).until(() -> waha.sentTo(CHAT).size() == 1);
        assertThat(waha.sentTo(CHAT).getFirst().text()).isEqualTo("resumed after the crash");
        assertThat(waha.sentTo(CHAT).getFirst().body().path("reply_to").asText()).as("still a reply to the message")
                .isEqualTo("false_" + CHAT + "_3EB0CRSH");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashBetweenSendAndAnswer_sendsTheReplyOnceMore_afterTheRestart() {
        waha.answerDelay = Duration.ofMillis(150);
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "WAHA's send has no idempotency key: the reply, in doubt after the crash, "
                + "reaches the chat twice by design (at least once)");
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            waha.post(FakeWaha.message(FakeWaha.dm(ALICE, "3EB0SEND", "question")));
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn("question")).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);
        assertThat(waha.sentTo(CHAT)).extracting(FakeWaha.Call::text).as("at least once: the part in doubt went out again")
                .containsExactly("the answer", "the answer");
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
