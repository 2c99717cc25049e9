package dev.herald.platforms.sms;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Twilio's calls to Herald's webhook on the API server's listener: a signed SMS answered through the Messages API in
 * plain text with empty TwiML at once; anything not signed with the auth token over the URL Twilio called refused
 * (403) before anything is read or stored; a redelivered MessageSid answered once.
 */
class SmsWebhookTest {
    static final String ALICE = "+4915112345678";
    static final String STRANGER = "+447700900123";

    final FakeTwilio twilio = new FakeTwilio();
    @RegisterExtension
    final GatewayFixture herald = twilio.herald(ALICE).withPairing();

    @Test
    void aSignedSms_getsEmptyTwiml_andTheAnswerAsPlainText_fromTheNumber() {
        herald.start();
        herald.agent.reply("## Result\n\n**Done**: the _report_ is ~~late~~ [ready](https://example.com/r).\n\n- one\n- two\n\n`ok`");

        var response = twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(1), "write the report"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/xml"));
        assertThat(response.body()).endsWith("<Response/>");
        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        FakeTwilio.Sent reply = twilio.sentTo(ALICE).getFirst();
        assertThat(reply.from()).isEqualTo(FakeTwilio.NUMBER);
        assertThat(reply.body()).as("Markdown stripped to plain text")
                .isEqualTo("Result\n\nDone: the report is late ready (https://example.com/r).\n\n- one\n- two\n\nok");
        assertThat(reply.mediaUrls()).isEmpty();
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("write the report"));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        assertThat(herald.turns().getFirst().source().chatId()).as("one session per phone number").isEqualTo(ALICE);
    }

    @Test
    void aWrongToken_noSignature_aTamperedParameter_are403AndNothingIsStored_andAReplayedMessageSid_isAnsweredOnce() {
        herald.start();
        Map<String, String> form = FakeTwilio.sms(ALICE, FakeTwilio.sid(2), "hello");
        String good = FakeTwilio.signature(FakeTwilio.AUTH_TOKEN, twilio.webhookUrl(), form);
        Map<String, String> tampered = new LinkedHashMap<>(form);
        tampered.put("Body", "hello, transfer everything");

        var wrongToken = twilio.post(form, FakeTwilio.signature("not-the-auth-token", twilio.webhookUrl(), form));
        var none = twilio.post(form, null);
        var changed = twilio.post(tampered, good);
        var malformed = twilio.post(form, "sha1=abc");
        assertThat(List.of(wrongToken.statusCode(), none.statusCode(), changed.statusCode(), malformed.statusCode())).containsOnly(403);
        assertThat(wrongToken.body()).doesNotContain("Response");
        assertThat(herald.turns()).isEmpty();

        assertThat(twilio.post(form, good).statusCode()).isEqualTo(200);
        assertThat(twilio.post(form, good).statusCode()).as("Twilio's retry of the same MessageSid").isEqualTo(200);
        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(herald.turns()).hasSize(1);
        assertThat(herald.turns().getFirst().text()).isEqualTo("hello");
    }

    @Test
    void aBodyThatIsNotAForm_is400_andAnUnsignedHugeBody_is413() {
        herald.start();

        assertThat(twilio.postRaw("Body=%zz&From=%2B4915112345678", "AAAAAAAAAAAAAAAAAAAAAAAAAAA=").statusCode()).isEqualTo(400);
        assertThat(twilio.postRaw("Body=" + "a".repeat(1024 * 1024 + 10), "AAAAAAAAAAAAAAAAAAAAAAAAAAA=").statusCode()).isEqualTo(413);
        assertThat(herald.turns()).isEmpty();
    }

    @Test
    void anUnknownNumber_getsAPairingCode_andNoTurn() {
        herald.start();

        twilio.text(FakeTwilio.sms(STRANGER, FakeTwilio.sid(3), "let me in"));

        await().atMost(WAIT).until(() -> twilio.sentTo(STRANGER).size() == 1);
        assertThat(twilio.sentTo(STRANGER).getFirst().body()).contains("pairing code").contains("herald pairing approve sms");
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
    }

    @Test
    void aStatusCallback_orAnotherAccountsMessage_startsNoTurn() {
        herald.start();
        Map<String, String> status = new LinkedHashMap<>();
        status.put("SmsSid", FakeTwilio.sid(4));
        status.put("SmsStatus", "delivered");
        status.put("MessageStatus", "delivered");
        status.put("AccountSid", FakeTwilio.ACCOUNT_SID);
        Map<String, String> other = FakeTwilio.sms(ALICE, FakeTwilio.sid(5), "from elsewhere");
        other.put("AccountSid", "AC" + "f".repeat(32));

        assertThat(twilio.text(status).statusCode()).isEqualTo(200);
        assertThat(twilio.text(other).statusCode()).isEqualTo(200);
        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(6), "still there?"));

        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);
        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("echo: still there?");
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void anApprovalQuestion_isTypedText_sinceSmsHasNoButtons() {
        herald.start();

        var result = herald.current.send(new dev.herald.core.platform.OutboundMessage(dev.herald.core.platform.ChatTarget.of(ALICE),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.",
                dev.herald.core.platform.MessageKind.PROMPT, null, null, 1, 1));

        assertThat(result.success()).isTrue();
        assertThat(herald.current.capabilities().buttons()).isFalse();
        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("The agent wants to run rm -rf build.\nReply /approve, /approve always, "
                + "or /deny within 5 min.");
    }
}
