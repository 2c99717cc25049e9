package dev.herald.platforms.irc;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.Invariant;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Continuity through IRC against a real ngircd: the stop notices reach the asker in the channel and the home channel
 * (spec E2, E3), a turn cut off by a crash is answered once by the next process, and a reply part whose sending was not
 * recorded before a crash is sent again (IRC has no idempotency key: at least once).
 */
class IrcRestartTest {
    private static final Duration SETTLE = Duration.ofMillis(300);
    static Ngircd server;

    @BeforeAll
    static void startServer() throws Exception {
        server = Ngircd.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    final IrcServerTests.Names n = IrcServerTests.Names.next();
    @RegisterExtension
    final GatewayFixture herald = IrcServerTests.herald(server, n, s -> s.withHomeChannel(new HomeChannelConfig(n.home(), null, "ops")))
            .allow(n.alice());

    private IrcUser user(String nick) {
        return IrcServerTests.user(herald, server, nick);
    }

    @Test
    void E2_E3_aRestartDuringAHeldTurn_tellsTheAskerAndTheHomeChannel_thenTheNextProcessAnswersTheAskerOnce() throws Exception {
        herald.home(new HomeChannel(IrcAdapter.PLATFORM, ChatTarget.of(n.home()), "ops"));
        herald.start();
        IrcUser alice = user(n.alice()).join(n.channel()).join(n.home());
        ScriptedAgent.Hold hold = herald.agent.hold("never finished");
        alice.say(n.channel(), n.bot() + ": a long job");
        hold.awaitArrival(WAIT);

        herald.stop(StopKind.RESTART);

        String banner = StopKind.RESTART.banner();
        await().atMost(WAIT).until(() -> alice.messages(n.bot(), n.home()).size() == 1 && alice.messages(n.bot(), n.channel()).size() == 1);
        assertThat(alice.messages(n.bot(), n.channel())).containsExactly(n.alice() + ": " + banner);
        assertThat(alice.messages(n.bot(), n.home())).as("the home channel (joined because it is the home channel)").containsExactly(banner);

        herald.nextProcess();
        herald.agent.reply("picking up where we left off");
        herald.start();

        await().atMost(WAIT).during(SETTLE).until(() -> alice.messages(n.bot(), n.channel()).size() == 2);
        assertThat(alice.messages(n.bot(), n.channel()).get(1)).isEqualTo(n.alice() + ": picking up where we left off");
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(alice.messages(n.bot(), n.home())).as("the home channel hears nothing more").hasSize(1);
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() throws Exception {
        herald.start();
        IrcUser alice = user(n.alice());
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        alice.say(n.bot(), "work on this");
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(SETTLE).until(() -> alice.messages(n.bot(), n.alice()).size() == 1);
        assertThat(alice.messages(n.bot(), n.alice())).containsExactly("resumed after the crash");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aCrashAfterThePartWentOutButBeforeItWasRecorded_sendsItAgainAfterTheRestart_atLeastOnce() throws Exception {
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "IRC has no idempotency key: the part in doubt after the crash "
                + "reaches the chat twice by design (at least once)");
        herald.start();
        IrcUser alice = user(n.alice());
        herald.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            alice.say(n.bot(), "question");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn()).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        await().atMost(WAIT).until(() -> alice.messages(n.bot(), n.alice()).size() == 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn().state() == TurnState.DELIVERED);
        await().atMost(WAIT).until(() -> alice.messages(n.bot(), n.alice()).size() == 2);
        assertThat(alice.messages(n.bot(), n.alice())).as("at least once: the part in doubt went out again").containsExactly("the answer",
                "the answer");
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    private TurnRecord onlyTurn() {
        return herald.turns().stream().filter(t -> t.text().equals("question")).findFirst().orElseThrow();
    }
}
