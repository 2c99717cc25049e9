package dev.herald.platforms.whatsapp;

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
 * Restarts and outages through WhatsApp: a message is stored before Meta gets its 200 (else 503, and Meta's redelivery
 * is answered once); a turn cut off by a crash is resumed once by the next process; a reply Meta took whose answer
 * was lost to a crash is sent once more (the Cloud API has no idempotency key: at least once), never generated again.
 */
class WhatsAppDeliveryTest {
    static final String ALICE = WhatsAppWebhookTest.ALICE;

    final FakeWhatsApp meta = new FakeWhatsApp();
    @RegisterExtension
    final GatewayFixture herald = meta.herald(ALICE);

    private TurnRecord onlyTurn(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void whileTheStoreCannotWrite_theWebhookIs503_andMetasRedeliveryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        String body = FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLDISK", "question"));

        assertThat(meta.post(body)).as("not stored: Meta must deliver it again").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(meta.post(body)).isEqualTo(200);
        assertThat(meta.post(body)).as("a second redelivery is a duplicate").isEqualTo(200);

        await().atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);
        assertThat(meta.sentTo(ALICE).getFirst().text()).isEqualTo("echo: question");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLCRSH", "work on this")));
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> meta.sentTo(ALICE).size() == 1);
        assertThat(meta.sentTo(ALICE).getFirst().text()).isEqualTo("resumed after the crash");
        assertThat(meta.sentTo(ALICE).getFirst().context()).as("still a reply to the message").isEqualTo("wamid.HBgLCRSH");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashBetweenSendAndAnswer_sendsTheReplyOnceMore_afterTheRestart() {
        meta.answerDelay = Duration.ofMillis(150);
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "the Cloud API has no idempotency key: the reply, in doubt after the crash, "
                + "reaches the chat twice by design (at least once)");
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLSEND", "question")));
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn("question")).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);
        assertThat(meta.sentTo(ALICE)).extracting(FakeWhatsApp.Sent::text).as("at least once: the part in doubt went out again")
                .containsExactly("the answer", "the answer");
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
