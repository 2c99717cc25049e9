package dev.herald.platforms.email;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.email.EmailRig.ALICE;
import static dev.herald.platforms.email.EmailRig.mail;
import static dev.herald.platforms.email.EmailRig.newId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.Invariant;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What survives a stop, a kill -9 and a lost IMAP server: mail that came while Herald was down is answered once after the
 * start (the UID cursor); a reply cut off by a crash after SMTP took it is sent again with the same Message-ID (at least
 * once, recognisable); a turn cut off by a crash is resumed and answered once; after Dovecot restarts, the receiver
 * reconnects with its backoff and answers mail that arrived meanwhile.
 */
class EmailRestartTest {
    static EmailRig rig;

    @BeforeAll
    static void servers() throws Exception {
        rig = new EmailRig();
    }

    @AfterAll
    static void stopServers() throws Exception {
        rig.close();
    }

    @RegisterExtension
    final GatewayFixture herald = rig.herald(ALICE);

    @BeforeEach
    void freshSink() {
        rig.smtp.mails.clear();
    }

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void mailThatArrivedWhileStopped_isAnsweredOnceAfterTheStart_andNotAgainAfterTheNext() throws Exception {
        herald.start();
        herald.stop(StopKind.SHUTDOWN);
        String id = newId();
        long uid = rig.dovecot.append(mail(ALICE, "While you were out", id, "Did you get this?"));
        assertThat(rig.dovecot.flags(uid)).doesNotContain("\\Seen");

        herald.restart();
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).stream().anyMatch(m -> m.answers(id)));
        await().atMost(WAIT).until(() -> rig.dovecot.flags(uid).contains("\\Seen"));
        herald.stop(StopKind.SHUTDOWN);

        herald.restart();
        rig.dovecot.append(mail(ALICE, "Later", newId(), "and this one"));
        herald.agent.awaitCalls(1, WAIT);
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).size() == 2);
        assertThat(herald.agent.messages()).as("the earlier mail is behind the cursor").containsExactly("and this one");
        assertThat(rig.smtp.to(ALICE).stream().filter(m -> m.answers(id))).hasSize(1);
    }

    @Test
    void aCrashBetweenSmtpAndTheRecord_sendsTheReplyAgain_withTheSameMessageId() throws Exception {
        herald.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "SMTP has no idempotency key: the reply, in doubt after the crash, "
                + "is sent twice by design (at least once), with one Message-ID so the mail client shows one mail");
        herald.start();
        herald.agent.reply("the answer");
        String id = newId();
        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            rig.dovecot.append(mail(ALICE, "question", id, "question"));
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(turnOf("question")).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).until(() -> turnOf("question").state() == TurnState.DELIVERED);
        assertThat(rig.smtp.to(ALICE)).hasSize(2).allSatisfy(m -> assertThat(m.answers(id)).isTrue());
        assertThat(rig.smtp.to(ALICE).get(1).header("Message-ID")).as("a resend is recognisable").isEqualTo(rig.smtp.to(ALICE).get(0).header("Message-ID"));
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredOnce() throws Exception {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        String id = newId();
        rig.dovecot.append(mail(ALICE, "long job", id, "work on this"));
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> rig.smtp.to(ALICE).size() == 1);
        SmtpSink.Mail reply = rig.smtp.to(ALICE).getFirst();
        assertThat(reply.message().getSubject()).isEqualTo("Re: long job");
        assertThat(reply.answers(id)).as("the resumed answer threads under the mail it answers").isTrue();
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void imapServerRestarted_theReceiverReconnects_andAnswersMailThatCameMeanwhile() throws Exception {
        herald.start();
        rig.dovecot.append(mail(ALICE, "before", newId(), "before the outage"));
        herald.agent.awaitCalls(1, WAIT);

        rig.logs.list.clear();
        rig.dovecot.halt();
        await().atMost(WAIT).until(() -> rig.logLines().stream().anyMatch(l -> l.contains("reconnecting to IMAP")));
        rig.dovecot.run();
        rig.dovecot.append(mail(ALICE, "after", newId(), "after the outage"));

        herald.agent.awaitCalls(2, WAIT);
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).size() == 2);
        assertThat(herald.agent.messages()).containsExactly("before the outage", "after the outage");
    }
}
