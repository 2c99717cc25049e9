package dev.herald.platforms.googlechat;

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
 * Restarts and outages through Google Chat: an event is stored before Google Chat gets its 200 (else 503, and the
 * retry is answered once); a turn cut off by a crash is resumed once, in its thread; a reply whose create was answered
 * but lost to a crash is sent again with the same request id, so the space still sees it once.
 */
class GoogleChatDeliveryTest {
    static final String ALICE = GoogleChatEventsTest.ALICE;
    static final String DM = GoogleChatEventsTest.DM;
    static final String SPACE = GoogleChatEventsTest.SPACE;

    final FakeGoogleChat chat = new FakeGoogleChat();
    @RegisterExtension
    final GatewayFixture herald = chat.herald(ALICE);

    private TurnRecord onlyTurn(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void whileTheStoreCannotWrite_theRouteIs503_andTheRetryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        String event = FakeGoogleChat.dm(DM, ALICE, "disk1.x", "question").toString();

        assertThat(chat.post(event)).as("not stored: Google Chat must try again").isEqualTo(503);
        assertThat(herald.turns()).isEmpty();
        herald.freeDisk();
        assertThat(chat.post(event)).isEqualTo(200);
        assertThat(chat.post(event)).isEqualTo(200);

        await().atMost(WAIT).until(() -> chat.createdIn(DM).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> chat.createdIn(DM).size() == 1);
        assertThat(chat.createdIn(DM).getFirst().text()).isEqualTo("echo: question");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce_inItsThread() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        chat.post(FakeGoogleChat.message(SPACE, "SPACE", "thrX", ALICE, "crash1.x", "work on this", true).toString());
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> chat.createdIn(SPACE).size() == 1);
        assertThat(chat.createdIn(SPACE).getFirst().text()).isEqualTo("resumed after the crash");
        assertThat(chat.createdIn(SPACE).getFirst().thread()).isEqualTo("spaces/" + SPACE + "/threads/thrX");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashBetweenCreateAndAnswer_sendsAgainWithTheSameRequestId_andTheSpaceSeesTheReplyOnce() {
        chat.answerDelay = Duration.ofMillis(150);
        herald.start();
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            chat.post(FakeGoogleChat.dm(DM, ALICE, "send1.x", "question").toString());
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn("question").state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn("question").state() == TurnState.DELIVERED);
        assertThat(chat.createCalls.get()).as("the part in doubt was sent again").isEqualTo(2);
        assertThat(chat.createdIn(DM)).extracting(FakeGoogleChat.Created::text).as("but made once").containsExactly("the answer");
        assertThat(herald.agent.calls()).isEmpty();
    }
}
