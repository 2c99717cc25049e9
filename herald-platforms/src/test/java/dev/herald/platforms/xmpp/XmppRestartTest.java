package dev.herald.platforms.xmpp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restarts and crashes on XMPP against a real Prosody: the server going away and coming back, Herald killed during a
 * turn or between a send and its record, and a one-to-one message sent while Herald was down.
 */
class XmppRestartTest {
    private static final Duration SETTLE = Duration.ofMillis(400);
    static Prosody prosody;

    @RegisterExtension
    final GatewayFixture herald = XmppTest.herald(XmppTest.settings(prosody, prosody.port, List.of(XmppTest.ROOM)), XmppTest.ALICE);
    XmppUser alice;

    @BeforeAll
    static void startServer() throws Exception {
        prosody = new Prosody().register("herald", XmppTest.BOT_PASSWORD).register("alice", "alice-pw").start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        prosody.close();
    }

    @BeforeEach
    void setUp() throws Exception {
        alice = XmppUser.login(prosody, "alice", "alice-pw");
    }

    @AfterEach
    void tearDown() {
        alice.close();
    }

    private XmppAdapter adapter() {
        return (XmppAdapter) herald.current;
    }

    @Test
    void theServerStoppedAndStartedAgain_theAdapterReconnects_rejoinsTheRoom_andAnswersTheNextMessages() throws Exception {
        herald.start();
        alice.close();

        prosody.stop();
        await().atMost(WAIT).until(() -> !adapter().ready());
        prosody.start();
        await().atMost(WAIT).until(() -> adapter().ready());

        alice = XmppUser.login(prosody, "alice", "alice-pw");
        alice.join(XmppTest.ROOM, "alice");
        Thread.sleep(300); // alice's join reaches the room (and the bot learns her real JID) before she speaks
        alice.sayInRoom(XmppTest.ROOM, "herald, back again?");
        alice.say(XmppTest.BOT, "and here?");

        await().atMost(WAIT).during(SETTLE).until(() -> alice.bodiesFrom(XmppTest.ROOM).contains("echo: back again?")
                && alice.bodiesFrom(XmppTest.BOT).equals(List.of("echo: and here?")));
        assertThat(herald.agent.messages()).containsExactlyInAnyOrder("back again?", "and here?");
    }

    @Test
    void aMessageSentWhileHeraldWasStopped_isDeliveredByTheServerAtTheNextLogin_andAnsweredOnce() {
        herald.start();
        herald.stop(dev.herald.core.gateway.StopKind.SHUTDOWN);

        alice.say(XmppTest.BOT, "while you were away");

        herald.restart();
        await().atMost(WAIT).during(SETTLE).until(() -> alice.bodiesFrom(XmppTest.BOT).stream().filter(b -> b.startsWith("echo")).count() == 1);
        assertThat(alice.bodiesFrom(XmppTest.BOT)).contains("echo: while you were away");
        assertThat(herald.agent.messages()).containsExactly("while you were away");
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        alice.say(XmppTest.BOT, "work on this");
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(SETTLE).until(() -> alice.bodiesFrom(XmppTest.BOT).stream().anyMatch(b -> b.startsWith("resumed")));
        assertThat(alice.bodiesFrom(XmppTest.BOT)).containsExactly("resumed after the crash");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashBetweenSendAndRecord_resendsThePartWithTheSameId_soTheRepeatCanBeRecognised() {
        herald.start();
        herald.agent.reply("the one answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            alice.say(XmppTest.BOT, "question");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn()).extracting(TurnRecord::state, TurnRecord::sendingPart).as("handed to the server, no answer recorded")
                .containsExactly(TurnState.AWAITING_DELIVERY, 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn().state() == TurnState.DELIVERED);
        await().atMost(WAIT).until(() -> alice.messagesFrom(XmppTest.BOT).size() == 2);
        List<XmppUser.Received> got = alice.messagesFrom(XmppTest.BOT);
        assertThat(got).extracting(XmppUser.Received::body).containsExactly("the one answer", "the one answer");
        assertThat(got.get(1).id()).as("the resend carries the first attempt's id").isEqualTo(got.get(0).id());
        assertThat(onlyTurn().replyMessageId()).isEqualTo(got.get(0).id());
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    private TurnRecord onlyTurn() {
        return herald.turns().stream().filter(t -> t.text().equals("question")).findFirst().orElseThrow();
    }
}
