package dev.herald.platforms.waha;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * WAHA's calls to Herald's webhook on the API server's listener: signed messages answered through {@code sendText} as
 * replies in WhatsApp formatting; unsigned, wrongly signed and stale calls refused before anything is stored; a replay
 * answered once; Herald's own messages, status updates and other sessions left out; groups answered only when the
 * number is mentioned.
 */
class WahaWebhookTest {
    static final String ALICE = "4915112345678";
    static final String BOB = "4915187654321";
    static final String STRANGER = "447700900123";
    static final String GROUP = "120363025246125486";

    final FakeWaha waha = new FakeWaha();
    @RegisterExtension
    final GatewayFixture herald = waha.herald(ALICE, BOB).withPairing();

    @Test
    void aSignedMessage_isAnsweredAsAReplyToIt_inWhatsAppFormatting() {
        herald.start();
        herald.agent.reply("**Done**: the _report_ is ~~late~~ ready, see [the page](https://example.org/r).\n\n```\nok\n```");

        int status = waha.post(FakeWaha.message(FakeWaha.dm(ALICE, "3EB0AAA1", "write the report")));

        assertThat(status).isEqualTo(200);
        await().atMost(WAIT).until(() -> waha.sentTo(ALICE + "@c.us").size() == 1);
        FakeWaha.Call reply = waha.sentTo(ALICE + "@c.us").getFirst();
        assertThat(reply.method()).isEqualTo("sendText");
        assertThat(reply.text()).isEqualTo("*Done*: the _report_ is ~late~ ready, see the page (https://example.org/r).\n\n```ok```");
        assertThat(reply.body().path("reply_to").asText()).as("a reply to the message it answers").isEqualTo("false_" + ALICE + "@c.us_3EB0AAA1");
        assertThat(reply.body().path("session").asText()).isEqualTo(FakeWaha.SESSION);
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("write the report"));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        var turn = herald.turns(TurnState.DELIVERED).getFirst();
        assertThat(turn.source().userName()).isEqualTo("Alice");
        assertThat(turn.source().userId()).isEqualTo(ALICE);
        assertThat(turn.platformMessageId()).isEqualTo("false_" + ALICE + "@c.us_3EB0AAA1");
    }

    @Test
    void aWrongKey_noSignature_orAnotherAlgorithm_is401AndNothingIsStored() {
        herald.start();
        String body = FakeWaha.message(FakeWaha.dm(ALICE, "3EB0AAA2", "hello"));
        String good = FakeWaha.hex(FakeWaha.hmac(FakeWaha.HMAC_KEY, body.getBytes(StandardCharsets.UTF_8)));

        assertThat(waha.post(body, FakeWaha.hex(FakeWaha.hmac("not-the-hmac-key", body.getBytes(StandardCharsets.UTF_8))), "sha512"))
                .as("signed with another key").isEqualTo(401);
        assertThat(waha.post(body, null, null)).as("unsigned").isEqualTo(401);
        assertThat(waha.post(body, good, null)).as("no algorithm header").isEqualTo(401);
        assertThat(waha.post(body, good, "sha256")).as("another algorithm").isEqualTo(401);
        assertThat(waha.post(body, good.substring(0, 64), "sha512")).as("cut short").isEqualTo(401);
        assertThat(waha.post(body.replace("hello", "hellO"), good, "sha512")).as("a changed body").isEqualTo(401);

        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> herald.turns().isEmpty());
        assertThat(waha.sentTo(ALICE + "@c.us")).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
        assertThat(waha.post(body, good.toUpperCase(), "SHA512")).as("the right signature, in upper case").isEqualTo(200);
        await().atMost(WAIT).until(() -> waha.sentTo(ALICE + "@c.us").size() == 1);
    }

    @Test
    void aReplayedEvent_isAnsweredOnce_andAStaleOne_is403AndNotStored() {
        herald.start();
        String body = FakeWaha.message(FakeWaha.dm(ALICE, "3EB0AAA3", "once please"));

        assertThat(waha.post(body)).isEqualTo(200);
        assertThat(waha.post(body)).as("WAHA's retry, or a replay of the signed body").isEqualTo(200);
        assertThat(waha.post(FakeWaha.event("message.any", FakeWaha.dm(ALICE, "3EB0AAA3", "once please"), Instant.now())))
                .as("the same message as message.any").isEqualTo(200);
        await().atMost(WAIT).until(() -> waha.sentTo(ALICE + "@c.us").size() == 1);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> waha.sentTo(ALICE + "@c.us").size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);

        String old = FakeWaha.event("message", FakeWaha.dm(ALICE, "3EB0AAA4", "from long ago"), Instant.now().minus(Duration.ofHours(2)));
        String future = FakeWaha.event("message", FakeWaha.dm(ALICE, "3EB0AAA5", "from the future"), Instant.now().plus(Duration.ofHours(2)));
        String undated = FakeWaha.message(FakeWaha.dm(ALICE, "3EB0AAA6", "when?")).replaceFirst("\"timestamp\":[0-9]+,", "");
        assertThat(waha.post(old)).as("signed, but older than the window").isEqualTo(403);
        assertThat(waha.post(future)).isEqualTo(403);
        assertThat(waha.post(undated)).isEqualTo(403);
        assertThat(herald.turns()).extracting(t -> t.text()).containsExactly("once please");
    }

    @Test
    void ownMessages_statusUpdates_otherSessions_andOtherEvents_startNoTurn_andTheNextMessageIsAnswered() {
        herald.start();
        var own = FakeWaha.dm(ALICE, "3EB0BBB1", "sent from the phone").put("fromMe", true);
        var story = FakeWaha.dm(ALICE, "3EB0BBB2", "my holiday").put("from", "status@broadcast");
        String otherSession = FakeWaha.message(FakeWaha.dm(ALICE, "3EB0BBB3", "to the other number")).replace("\"session\":\"default\"",
                "\"session\":\"work\"");

        assertThat(waha.post(FakeWaha.event("message.any", own, Instant.now()))).isEqualTo(200);
        assertThat(waha.post(FakeWaha.message(story))).isEqualTo(200);
        assertThat(waha.post(otherSession)).isEqualTo(200);
        assertThat(waha.post(FakeWaha.event("message.reaction", LocalJsonServer.JSON.createObjectNode().put("id", "x"), Instant.now()))).isEqualTo(200);
        assertThat(waha.post("not json at all")).as("signed but unreadable: skipped with a log line").isEqualTo(200);
        waha.post(FakeWaha.message(FakeWaha.dm(ALICE, "3EB0BBB4", "still there?")));

        await().atMost(WAIT).until(() -> waha.sentTo(ALICE + "@c.us").size() == 1);
        assertThat(waha.sentTo(ALICE + "@c.us").getFirst().text()).isEqualTo("echo: still there?");
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void inAGroup_onlyAMessageThatMentionsTheNumber_startsATurn_answeredInTheGroup() {
        herald.start();
        String chat = GROUP + "@g.us";

        waha.post(FakeWaha.message(FakeWaha.group(GROUP, ALICE, "3EB0CCC1", "lunch at noon?")));
        waha.post(FakeWaha.message(FakeWaha.group(GROUP, ALICE, "3EB0CCC2", "@" + BOB + " what do you think?", BOB + "@c.us")));
        waha.post(FakeWaha.message(FakeWaha.group(GROUP, BOB, "3EB0CCC3", "@" + FakeWaha.ME + " summarize the thread", FakeWaha.ME_ID)));

        await().atMost(WAIT).until(() -> waha.sentTo(chat).size() == 1);
        FakeWaha.Call reply = waha.sentTo(chat).getFirst();
        assertThat(reply.text()).as("the mention is not part of the question").isEqualTo("echo: summarize the thread");
        assertThat(reply.body().path("reply_to").asText()).isEqualTo("false_" + chat + "_3EB0CCC3_" + BOB + "@c.us");
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.source().userId()).isEqualTo(BOB);
            assertThat(t.source().chatId()).isEqualTo(chat);
        });

        var typedOnly = FakeWaha.group(GROUP, ALICE, "3EB0CCC4", "@" + FakeWaha.ME + " and the dates?");
        typedOnly.remove("mentionedIds");
        typedOnly.with("_data").remove("mentionedJidList");
        waha.post(FakeWaha.message(typedOnly));
        var answering = FakeWaha.group(GROUP, ALICE, "3EB0CCC5", "and tomorrow?");
        answering.putObject("replyTo").put("id", "3EB01001").put("participant", FakeWaha.ME_ID).put("body", "echo: ...");
        waha.post(FakeWaha.message(answering));
        await().atMost(WAIT).until(() -> waha.sentTo(chat).size() == 3);
        assertThat(waha.sentTo(chat)).extracting(FakeWaha.Call::text).as("a typed @number and an answer to the number count as mentions")
                .containsExactlyInAnyOrder("echo: summarize the thread", "echo: and the dates?", "echo: and tomorrow?");
        assertThat(herald.agent.calls()).hasSize(3);
    }

    @Test
    void withRequireMentionOff_everyGroupMessageStartsATurn() {
        waha.settings = waha.settings.withRequireMention(false);
        herald.start();

        waha.post(FakeWaha.message(FakeWaha.group(GROUP, ALICE, "3EB0DDD1", "lunch at noon?")));

        await().atMost(WAIT).until(() -> waha.sentTo(GROUP + "@g.us").size() == 1);
        assertThat(waha.sentTo(GROUP + "@g.us").getFirst().text()).isEqualTo("echo: lunch at noon?");
    }

    @Test
    void anUnknownNumber_getsAPairingCode_andNoTurn() {
        herald.start();

        waha.post(FakeWaha.message(FakeWaha.dm(STRANGER, "3EB0EEE1", "let me in")));

        await().atMost(WAIT).until(() -> waha.sentTo(STRANGER + "@c.us").size() == 1);
        assertThat(waha.sentTo(STRANGER + "@c.us").getFirst().text()).contains("pairing code").contains("herald pairing approve waha");
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
    }

    @Test
    void aRunningTurn_marksTheMessageSeen_andShowsTyping_andAnApprovalQuestionGoesAsTypedText() {
        herald.start();
        var hold = herald.agent.hold("thought about it");

        waha.post(FakeWaha.message(FakeWaha.dm(ALICE, "3EB0FFF1", "think hard")));
        hold.awaitArrival(WAIT);

        await().atMost(WAIT).until(() -> !waha.calls("startTyping").isEmpty() && !waha.calls("sendSeen").isEmpty());
        assertThat(waha.calls("sendSeen").getFirst().body().path("messageIds").path(0).asText()).isEqualTo("false_" + ALICE + "@c.us_3EB0FFF1");
        assertThat(waha.calls("startTyping").getFirst().chatId()).isEqualTo(ALICE + "@c.us");
        hold.release();
        await().atMost(WAIT).until(() -> waha.sentTo(ALICE + "@c.us").size() == 1);
        await().atMost(WAIT).until(() -> waha.calls("stopTyping").size() == 1);

        var result = herald.current.send(new OutboundMessage(ChatTarget.of(ALICE + "@c.us"),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.", MessageKind.PROMPT, null, null, 1, 1));
        assertThat(result.success()).isTrue();
        assertThat(herald.current.capabilities().buttons()).isFalse();
        assertThat(waha.sentTo(ALICE + "@c.us").getLast().text()).contains("`rm -rf build`").contains("/approve");
    }
}
