package dev.herald.platforms.sms;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * STOP, START and HELP: a STOP (or a synonym) never reaches the agent and nothing more is sent to the number, after a
 * restart too, until it texts START; HELP is answered at once in the TwiML with the configured help text.
 */
class SmsOptOutTest {
    static final String ALICE = SmsWebhookTest.ALICE;

    final FakeTwilio twilio = new FakeTwilio();
    @RegisterExtension
    final GatewayFixture herald = twilio.herald(ALICE);

    @Test
    void help_andInfo_areAnsweredInTheTwiml_withTheHelpText_andReachNoAgent() {
        twilio.settings = twilio.settings.withHelpText("Herald test line: ask me anything. Reply STOP to opt out. <3 & more");
        herald.start();

        var help = twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(20), "help"));
        var info = twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(21), " INFO "));

        assertThat(help.statusCode()).isEqualTo(200);
        assertThat(help.body()).contains("<Response><Message>Herald test line: ask me anything. Reply STOP to opt out. &lt;3 &amp; more</Message></Response>");
        assertThat(info.body()).contains("<Message>Herald test line");
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
        assertThat(twilio.sent).as("answered in the TwiML, not through the API").isEmpty();
    }

    @Test
    void stop_reachesNoAgent_andNothingMoreIsSent_acrossARestart_untilStart() {
        herald.start();

        assertThat(twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(22), "Stop")).body()).endsWith("<Response/>");
        var notice = herald.current.send(OutboundMessage.notice(ChatTarget.of(ALICE), "a scheduled report"));
        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(23), "are you there?"));

        assertThat(notice.success()).isFalse();
        assertThat(notice.retryable()).isFalse();
        assertThat(notice.error()).contains("texted STOP");
        assertThat(herald.turns()).as("neither the STOP nor a message after it starts a turn").isEmpty();
        assertThat(herald.agent.calls()).isEmpty();

        herald.crash();
        herald.start();
        assertThat(herald.current.send(OutboundMessage.notice(ChatTarget.of(ALICE), "after the restart")).success()).as("kept in the store").isFalse();
        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(24), "unsubscribe"));
        assertThat(twilio.messageCalls.get()).as("nothing reached Twilio's API").isZero();

        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(25), "START"));
        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(26), "back again"));
        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("echo: back again");
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("back again"));
    }

    @Test
    void everySynonym_isItsKeyword_andAKeywordInASentence_isAMessage() {
        for (String w : new String[] {"STOP", "stopall", "Unsubscribe", "CANCEL", "end", "QUIT", "stop."}) {
            assertThat(SmsKeywords.of(w)).as(w).contains(SmsKeywords.STOP);
        }
        for (String w : new String[] {"START", "yes", "Unstop"}) {
            assertThat(SmsKeywords.of(w)).as(w).contains(SmsKeywords.START);
        }
        assertThat(SmsKeywords.of("help")).contains(SmsKeywords.HELP);
        assertThat(SmsKeywords.of("info!")).contains(SmsKeywords.HELP);
        assertThat(SmsKeywords.of("please stop the build")).isEmpty();
        assertThat(SmsKeywords.of("yes, do it")).isEmpty();

        herald.start();
        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(27), "please stop the build"));
        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        await().during(Duration.ofMillis(200)).atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("echo: please stop the build");
    }
}
