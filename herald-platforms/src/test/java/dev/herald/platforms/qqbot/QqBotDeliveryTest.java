package dev.herald.platforms.qqbot;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restart guarantees through QQ: a redelivered message is answered once; a crash mid-turn is answered exactly once by the
 * next process; a crash between a send and its record is resent with the same msg_seq, which QQ refuses as a duplicate,
 * so the chat has the answer once; 5xx and 429 are retried.
 */
class QqBotDeliveryTest {
    static final FakeQqGateway qq = new FakeQqGateway();
    @RegisterExtension
    final GatewayFixture herald = FakeQqGateway.herald(qq, "alice");

    @org.junit.jupiter.api.BeforeEach
    void resetFake() {
        qq.reset();
    }

    @org.junit.jupiter.api.AfterAll
    static void stopFake() {
        qq.close();
    }

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void aRedeliveredMessage_isAnsweredOnce() {
        herald.start();

        qq.c2c("c2c-dup", "alice", "only once");
        qq.c2c("c2c-dup", "alice", "only once");
        qq.c2c("c2c-next", "alice", "then this");

        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 2);
        assertThat(qq.postsTo("user:alice")).extracting(FakeQqGateway.Post::content).containsExactly("echo: only once", "echo: then this");
        assertThat(herald.agent.calls()).hasSize(2);
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce_asAReplyToTheMessage() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        qq.c2c("c2c-crash", "alice", "work on this");
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> qq.postsTo("user:alice").size() == 1);
        FakeQqGateway.Post p = qq.postsTo("user:alice").getFirst();
        assertThat(p.content()).isEqualTo("resumed after the crash");
        assertThat(p.msgId()).isEqualTo("c2c-crash");
        assertThat(p.msgSeq()).isEqualTo(1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(qq.sent(2)).as("the new process identifies afresh").hasSize(2);
    }

    @Test
    void aCrashBetweenSendAndRecord_isResentWithTheSameMsgSeq_andTheChatHasTheAnswerOnce() {
        herald.start();
        herald.agent.reply("the one answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            qq.c2c("c2c-once", "alice", "question");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(turnOf("question").state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        assertThat(qq.postsTo("user:alice")).hasSize(1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> turnOf("question").state() == TurnState.DELIVERED);
        assertThat(qq.postsTo("user:alice")).as("one message in the chat").singleElement()
                .satisfies(p -> assertThat(p.content()).isEqualTo("the one answer"));
        assertThat(qq.refused).as("the resend was refused as a duplicate").singleElement()
                .satisfies(p -> assertThat(p.msgSeq()).isEqualTo(1));
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    @Test
    void serverErrorsAndRateLimits_areRetried_withTheSameMsgSeq() {
        herald.start();
        qq.failNext.add(500);
        qq.failNext.add(429);

        qq.c2c("c2c-retry", "alice", "are you there?");

        await().atMost(WAIT).until(() -> turnOf("are you there?").state() == TurnState.DELIVERED);
        assertThat(qq.postsTo("user:alice")).singleElement().satisfies(p -> {
            assertThat(p.content()).isEqualTo("echo: are you there?");
            assertThat(p.msgSeq()).isEqualTo(1);
        });
        assertThat(qq.failNext).isEmpty();
    }
}
