package dev.herald.platforms.whatsapp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Meta's calls to Herald's webhook on the API server's listener: the subscription handshake, signed notifications
 * answered through the Graph API as replies to the message, and everything that is not Meta's refused before anything
 * is read or stored.
 */
class WhatsAppWebhookTest {
    static final String ALICE = "4915112345678";
    static final String STRANGER = "447700900123";

    final FakeWhatsApp meta = new FakeWhatsApp();
    @RegisterExtension
    final GatewayFixture herald = meta.herald(ALICE).withPairing();

    @Test
    void verification_withTheConfiguredToken_answersTheChallenge_andAWrongToken_is403() throws Exception {
        herald.start();

        var good = meta.verify("subscribe", FakeWhatsApp.VERIFY_TOKEN, "1158201444");
        var wrong = meta.verify("subscribe", "guessed-token", "1158201444");
        var notSubscribe = meta.verify("unsubscribe", FakeWhatsApp.VERIFY_TOKEN, "1158201444");

        assertThat(good.statusCode()).isEqualTo(200);
        assertThat(good.body()).isEqualTo("1158201444");
        assertThat(good.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        assertThat(wrong.statusCode()).isEqualTo(403);
        assertThat(wrong.body()).doesNotContain("1158201444");
        assertThat(notSubscribe.statusCode()).isEqualTo(403);
    }

    @Test
    void aSignedMessage_isAnsweredAsAReplyToIt_inWhatsAppFormatting() {
        herald.start();
        herald.agent.reply("**Done**: the _report_ is ~~late~~ ready.\n\n```\nok\n```");

        int status = meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLAAA1", "write the report")));

        assertThat(status).isEqualTo(200);
        await().atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);
        FakeWhatsApp.Sent reply = meta.sentTo(ALICE).getFirst();
        assertThat(reply.type()).isEqualTo("text");
        assertThat(reply.text()).isEqualTo("*Done*: the _report_ is ~late~ ready.\n\n```ok```");
        assertThat(reply.context()).as("a reply to the message it answers").isEqualTo("wamid.HBgLAAA1");
        assertThat(reply.body().path("recipient_type").asText()).isEqualTo("individual");
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("write the report"));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        assertThat(herald.turns(TurnState.DELIVERED).getFirst().source().userName()).isEqualTo("Alice");
    }

    @Test
    void aBadSignature_orNone_is401AndNothingIsStored_andARedeliveredMessage_isAnsweredOnce() {
        herald.start();
        String body = FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLAAA2", "hello"));

        int forged = meta.post(body, "sha256=" + FakeWhatsApp.hex(FakeWhatsApp.hmac("not-the-app-secret", body.getBytes())));
        int unsigned = meta.post(body, null);
        int malformed = meta.post(body, "sha1=abc");
        assertThat(forged).isEqualTo(401);
        assertThat(unsigned).isEqualTo(401);
        assertThat(malformed).isEqualTo(401);
        assertThat(herald.turns()).isEmpty();

        assertThat(meta.post(body)).isEqualTo(200);
        assertThat(meta.post(body)).as("Meta's redelivery of the same wamid").isEqualTo(200);
        await().atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void anUnknownNumber_getsAPairingCode_andNoTurn() {
        herald.start();

        meta.post(FakeWhatsApp.notification(STRANGER, "Mallory", FakeWhatsApp.text(STRANGER, "wamid.HBgLAAA3", "let me in")));

        await().atMost(WAIT).until(() -> meta.sentTo(STRANGER).size() == 1);
        assertThat(meta.sentTo(STRANGER).getFirst().text()).contains("pairing code").contains("herald pairing approve whatsapp");
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
    }

    @Test
    void statusCallbacks_andOtherFields_startNoTurn_andTheNextMessageIsAnswered() {
        herald.start();

        assertThat(meta.post(FakeWhatsApp.status("wamid.HBgLsent1", ALICE, "delivered", null))).isEqualTo(200);
        assertThat(meta.post(FakeWhatsApp.status("wamid.HBgLsent2", ALICE, "failed", 131026))).isEqualTo(200);
        assertThat(meta.post("{\"object\":\"whatsapp_business_account\",\"entry\":[{\"id\":\"1\",\"changes\":[{\"field\":\"account_update\","
                + "\"value\":{\"event\":\"VERIFIED_ACCOUNT\"}}]}]}")).isEqualTo(200);
        assertThat(meta.post("not json at all")).as("signed but unreadable: skipped with a log line").isEqualTo(200);
        meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLAAA4", "still there?")));

        await().atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);
        assertThat(meta.sentTo(ALICE).getFirst().text()).isEqualTo("echo: still there?");
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void aPressedApprovalButton_reachesTheGatewayAsTheCommandItNames() {
        herald.start();

        meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.buttonReply(ALICE, "wamid.HBgLAAA5", "/deny", "Deny")));

        await().atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);
        assertThat(herald.agent.calls()).as("a command, answered inline").isEmpty();
        assertThat(meta.sentTo(ALICE).getFirst().text()).isNotBlank();
    }

    @Test
    void anApprovalQuestion_goesOutWithThreeReplyButtons_whoseIdsAreTheCommands() {
        herald.start();

        var result = herald.current.send(new OutboundMessage(ChatTarget.of(ALICE),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.", MessageKind.PROMPT, null, null, 1, 1));

        assertThat(result.success()).isTrue();
        FakeWhatsApp.Sent prompt = meta.sentTo(ALICE).getFirst();
        assertThat(prompt.type()).isEqualTo("interactive");
        assertThat(prompt.body().path("interactive").path("body").path("text").asText()).contains("`rm -rf build`");
        var buttons = prompt.body().path("interactive").path("action").path("buttons");
        assertThat(buttons).hasSize(3);
        assertThat(buttons.findValuesAsText("id")).containsExactly("/approve", "/approve always", "/deny");
        assertThat(buttons.findValuesAsText("title")).allSatisfy(t -> assertThat(t.length()).isLessThanOrEqualTo(20));
    }

    @Test
    void aRunningTurn_marksTheMessageReadWithTheTypingIndicator() {
        herald.start();
        var hold = herald.agent.hold("thought about it");

        meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLAAA6", "think hard")));
        hold.awaitArrival(WAIT);

        await().atMost(WAIT).until(() -> meta.reads.contains("wamid.HBgLAAA6 typing"));
        hold.release();
        await().atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);
    }
}
