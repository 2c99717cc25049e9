package dev.herald.platforms.sms;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.Invariant;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sending through the Messages API and the restart guarantees: a long answer becomes several messages cut at
 * paragraph and sentence ends; Twilio's 21610 (unsubscribed recipient) is not retried and marks the number; 429 and
 * 5xx are retried (after Retry-After); a message is stored before Twilio gets its TwiML (else 503, and the retry is
 * answered once); a turn cut off by a crash is answered exactly once by the next process.
 */
class SmsDeliveryTest {
    static final String ALICE = SmsWebhookTest.ALICE;

    final FakeTwilio twilio = new FakeTwilio();
    @RegisterExtension
    final GatewayFixture herald = twilio.herald(ALICE);

    private TurnRecord onlyTurn(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void aLongAnswer_isSentAsSeveralMessages_cutAtParagraphAndSentenceEnds() {
        String sentence = "This sentence is one of many that make the answer long. ";
        String p1 = sentence.repeat(20).strip();           // 1,139 characters
        String p2 = sentence.repeat(25).strip();           // 1,424
        String p3 = sentence.repeat(35).strip();           // 1,994: longer than one message alone
        herald.start();
        herald.agent.reply("# Report\n\n" + p1 + "\n\n" + p2 + "\n\n" + p3);

        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(30), "the long report"));
        await().atMost(WAIT).until(() -> onlyTurn("the long report").state() == TurnState.DELIVERED);

        List<String> bodies = twilio.sentTo(ALICE).stream().map(FakeTwilio.Sent::body).toList();
        assertThat(bodies).allSatisfy(b -> assertThat(b.length()).isLessThanOrEqualTo(1600));
        assertThat(bodies).hasSizeGreaterThanOrEqualTo(4);
        assertThat(bodies.get(0)).isEqualTo("Report\n\n" + p1);
        assertThat(bodies.get(1)).isEqualTo(p2);
        assertThat(bodies.subList(2, bodies.size())).allSatisfy(b -> assertThat(b).startsWith("This sentence").endsWith("long."));
        assertThat(String.join(" ", bodies.subList(2, bodies.size()))).isEqualTo(p3);
    }

    @Test
    void chunks_preferParagraphs_thenLines_thenSentences_thenSpaces() {
        assertThat(SmsText.chunks("aaaa aaaa. bbbb bbbb", 15)).containsExactly("aaaa aaaa.", "bbbb bbbb");
        assertThat(SmsText.chunks("aaa\n\nbbb ccc ddd", 12)).containsExactly("aaa", "bbb ccc ddd");
        assertThat(SmsText.chunks("a".repeat(30), 12)).containsExactly("a".repeat(12), "a".repeat(12), "a".repeat(6));
        assertThat(SmsText.chunks("short", 1600)).containsExactly("short");
    }

    @Test
    void anUnsubscribedRecipient_21610_isNotRetried_andTheNumberIsMarked() {
        herald.start();
        twilio.errors.add(21610);

        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(31), "question"));
        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.UNDELIVERABLE);
        await().during(Duration.ofMillis(700)).atMost(WAIT).until(() -> twilio.messageCalls.get() == 1);

        assertThat(onlyTurn("question").deliveryError()).contains("21610").contains("opted out");
        assertThat(twilio.refused).extracting(FakeTwilio.Refused::code).containsExactly(21610);
        assertThat(herald.current.send(OutboundMessage.notice(ChatTarget.of(ALICE), "later")).success()).isFalse();
        assertThat(twilio.messageCalls.get()).as("nothing more tried").isEqualTo(1);
    }

    @Test
    void tooManyRequests_429_andA500_areRetried_andTheAnswerIsDeliveredOnce() {
        herald.start();
        twilio.errors.add(20429);
        twilio.errors.add(500);
        herald.agent.reply("the answer");

        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(32), "question"));
        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);

        assertThat(twilio.refused).extracting(FakeTwilio.Refused::code).containsExactly(20429, 500);
        assertThat(twilio.sentTo(ALICE)).extracting(FakeTwilio.Sent::body).containsExactly("the answer");
    }

    @Test
    void aRefusalMidwayThroughALongPart_continuesAfterTheMessageThatWentOut() {
        String sentence = "Sentence number one of a long answer goes here. ";
        String text = sentence.repeat(60).strip(); // about 2,900 characters: two messages
        twilio.failAtCall = 2;
        herald.start();
        herald.agent.reply(text);

        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(33), "long"));
        await().atMost(WAIT).until(() -> onlyTurn("long").state() == TurnState.DELIVERED);

        assertThat(twilio.refused).extracting(FakeTwilio.Refused::code).containsExactly(500);
        List<String> bodies = twilio.sentTo(ALICE).stream().map(FakeTwilio.Sent::body).toList();
        assertThat(bodies).as("the first message is not sent twice").hasSize(2);
        assertThat(String.join(" ", bodies)).isEqualTo(text);
    }

    @Test
    void whileTheStoreCannotWrite_theWebhookIs503_andTwiliosRetryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        var form = FakeTwilio.sms(ALICE, FakeTwilio.sid(34), "question");

        assertThat(twilio.text(form).statusCode()).as("not stored: Twilio must deliver it again").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(twilio.text(form).statusCode()).isEqualTo(200);
        assertThat(twilio.text(form).statusCode()).as("a second retry is a duplicate").isEqualTo(200);

        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("echo: question");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(35), "work on this"));
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> twilio.sentTo(ALICE).size() == 1);
        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("resumed after the crash");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashBetweenSendAndAnswer_sendsTheAnswerOnceMore_afterTheRestart() {
        twilio.answerDelay = Duration.ofMillis(150);
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "the Messages API has no idempotency key: the answer, in doubt after the crash, "
                + "reaches the phone twice by design (at least once)");
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(36), "question"));
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn("question")).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);
        assertThat(twilio.sentTo(ALICE)).extracting(FakeTwilio.Sent::body).as("at least once: the message in doubt went out again")
                .containsExactly("the answer", "the answer");
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
