package dev.herald.platforms.bluebubbles;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.SendResult;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.Invariant;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Outages and restarts: a message is stored before the server gets its 200 (else 503, and the redelivery is answered
 * once); while the Mac does not answer the platform status says so and the reply waits, then goes out once when it is
 * back; a turn cut off by a crash is resumed once; a retry carries the same tempGuid (a retry the server is still
 * sending is recognised; one it finished is sent again: at least once).
 */
class BlueBubblesDeliveryTest {
    static final String ALICE = BlueBubblesWebhookTest.ALICE;
    static final String CHAT = FakeBlueBubbles.dmChat(ALICE);

    final FakeBlueBubbles bb = new FakeBlueBubbles();
    @RegisterExtension
    final GatewayFixture herald = bb.herald(ALICE);

    private TurnRecord onlyTurn(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    private PlatformRegistry.Connection connection() {
        return herald.gateway.status().platforms().get(BlueBubblesAdapter.PLATFORM);
    }

    @Test
    void whileTheStoreCannotWrite_theWebhookIs503_andTheRedeliveryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        String body = FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "D15C-0001", "question"));

        assertThat(bb.post(body)).as("not stored: it must be delivered again").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(bb.post(body)).isEqualTo(200);
        assertThat(bb.post(body)).as("a second delivery is a duplicate").isEqualTo(200);

        await().atMost(WAIT).until(() -> bb.sentTo(CHAT).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> bb.sentTo(CHAT).size() == 1);
        assertThat(bb.sentTo(CHAT).getFirst().text()).isEqualTo("echo: question");
    }

    @Test
    void whileTheServerIsDown_theStatusSaysSo_andTheReplyGoesOutOnceItIsBack() {
        herald.start();
        await().atMost(WAIT).until(() -> connection().state() == ConnectionState.CONNECTED);
        assertThat(connection().detail()).contains("answers");

        bb.down = true;
        await().atMost(WAIT).until(() -> connection().state() == ConnectionState.BACKING_OFF);
        assertThat(connection().detail()).contains("unreachable").contains(bb.url()).doesNotContain(FakeBlueBubbles.PASSWORD);
        SendResult failed = herald.current.send(new OutboundMessage(ChatTarget.of(CHAT), "hello", MessageKind.NOTICE, null, null, 1, 1, "k-down"));
        assertThat(failed.success()).isFalse();
        assertThat(failed.retryable()).as("the Mac may wake up: the reply waits").isTrue();
        assertThat(failed.error()).doesNotContain(FakeBlueBubbles.PASSWORD);

        assertThat(bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "D15C-0002", "are you there?")))).isEqualTo(200);
        await().atMost(WAIT).until(() -> onlyTurn("are you there?").state() == TurnState.AWAITING_DELIVERY);
        assertThat(bb.sentTo(CHAT)).isEmpty();

        bb.down = false;
        await().atMost(WAIT).until(() -> connection().state() == ConnectionState.CONNECTED);
        await().atMost(WAIT).until(() -> onlyTurn("are you there?").state() == TurnState.DELIVERED);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> bb.sentTo(CHAT).size() == 1);
        assertThat(bb.sentTo(CHAT).getFirst().text()).isEqualTo("echo: are you there?");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        String body = FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "D15C-0003", "work on this"));
        bb.post(body);
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();
        assertThat(bb.post(body)).as("the server delivering the same message after the restart: a duplicate").isEqualTo(200);

        await().atMost(WAIT).during(Duration.ofMillis(400)).until(() -> bb.sentTo(CHAT).size() == 1);
        assertThat(bb.sentTo(CHAT).getFirst().text()).isEqualTo("resumed after the crash");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aRetryWhileTheServerStillSends_isRecognisedByItsTempGuid_andNotSentTwice() throws Exception {
        herald.start();
        bb.answerDelay = Duration.ofMillis(600);
        var m = new OutboundMessage(ChatTarget.of(CHAT), "only once", MessageKind.REPLY, null, null, 1, 1, "turn-7:part-1");

        CompletableFuture<SendResult> first = CompletableFuture.supplyAsync(() -> herald.current.send(m));
        await().atMost(WAIT).until(() -> bb.sentTo(CHAT).size() == 1);
        SendResult retry = herald.current.send(m);

        assertThat(retry.success()).as("the server still holds that tempGuid: already queued").isTrue();
        assertThat(first.get().success()).isTrue();
        assertThat(bb.sentTo(CHAT)).hasSize(1);
        var other = new OutboundMessage(ChatTarget.of(CHAT), "another part", MessageKind.REPLY, null, null, 1, 1, "turn-7:part-2");
        bb.answerDelay = Duration.ZERO;
        assertThat(herald.current.send(other).success()).isTrue();
        assertThat(bb.sentTo(CHAT)).extracting(c -> c.fields().get("tempGuid")).doesNotHaveDuplicates().hasSize(2);
    }

    @Test
    void aCrashBetweenSendAndAnswer_sendsTheReplyOnceMore_withTheSameTempGuid() {
        bb.answerDelay = Duration.ofMillis(150);
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "the server finished the first send before the retry: it cannot tell them apart "
                + "(at least once)");
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "D15C-0004", "question")));
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn("question").state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);
        assertThat(bb.sentTo(CHAT)).extracting(FakeBlueBubbles.Call::text).containsExactly("the answer", "the answer");
        assertThat(bb.sentTo(CHAT)).extracting(c -> c.fields().get("tempGuid")).as("derived from the outbox idempotency key").doesNotContainNull()
                .containsOnly(bb.sentTo(CHAT).getFirst().fields().get("tempGuid"));
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
