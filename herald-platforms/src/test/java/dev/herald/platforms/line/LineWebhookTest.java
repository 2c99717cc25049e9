package dev.herald.platforms.line;

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
 * LINE's calls to Herald's webhook on the API server's listener: signed events answered with the event's reply token
 * (or pushed once it is stale), everything not signed with the channel secret refused before anything is read or
 * stored, a redelivered event (same webhookEventId) answered once, approvals as quick-reply buttons whose postbacks
 * are the commands, and the loading animation while a turn runs.
 */
class LineWebhookTest {
    static final String ALICE = "U" + "a1".repeat(16);
    static final String STRANGER = "U" + "5e".repeat(16);

    final FakeLine line = new FakeLine();
    @RegisterExtension
    final GatewayFixture herald = line.herald(ALICE).withPairing();

    @Test
    void aSignedMessage_isAnsweredWithItsReplyToken_asPlainText() {
        herald.start();
        herald.agent.reply("**Done**: the _report_ is ready.\n\n```\nok\n```");

        int status = line.post(FakeLine.body(line.text(ALICE, "01HZX1A1000000000000000001", "write the report")));

        assertThat(status).isEqualTo(200);
        await().atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 1);
        FakeLine.Delivered reply = line.chatWith(ALICE).getFirst();
        assertThat(reply.via()).as("free of charge, with the event's reply token").isEqualTo("reply");
        assertThat(reply.type()).isEqualTo("text");
        assertThat(reply.text()).isEqualTo("Done: the report is ready.\n\nok");
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("write the report"));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        assertThat(line.refused).isEmpty();
    }

    @Test
    void aWrongSecret_noSignature_orAMalformedOne_is401AndNothingIsStored_andARedeliveredEvent_isAnsweredOnce() {
        herald.start();
        var event = line.text(ALICE, "01HZX1A1000000000000000002", "hello");
        String body = FakeLine.body(event);

        assertThat(line.post(body, FakeLine.signature("not-the-channel-secret", body))).isEqualTo(401);
        assertThat(line.post(body, null)).isEqualTo(401);
        assertThat(line.post(body, "sha256=abc")).isEqualTo(401);
        assertThat(line.post(body, FakeLine.signature(FakeLine.CHANNEL_SECRET, body + " "))).as("signed over another body").isEqualTo(401);
        assertThat(herald.turns()).isEmpty();

        assertThat(line.post(body)).isEqualTo(200);
        assertThat(line.post(FakeLine.body(FakeLine.redelivered(event)))).as("LINE's redelivery: same webhookEventId").isEqualTo(200);
        await().atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 1);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void aReplyTokenLineNoLongerTakes_isReplacedByAPush_andAStaleEvent_isPushedWithoutTryingItsToken() {
        herald.start();
        line.tokenLifetime = Duration.ZERO;

        line.post(FakeLine.body(line.text(ALICE, "01HZX1A1000000000000000003", "first")));
        await().atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 1);
        assertThat(line.chatWith(ALICE).getFirst()).extracting(FakeLine.Delivered::via, FakeLine.Delivered::text).containsExactly("push", "echo: first");
        assertThat(line.refused).extracting(FakeLine.Refused::message).containsExactly("Invalid reply token");

        line.tokenLifetime = Duration.ofMinutes(1);
        var late = line.text(ALICE, "01HZX1A1000000000000000004", "second");
        late.put("timestamp", System.currentTimeMillis() - 120_000); // delivered two minutes after it happened
        line.post(FakeLine.body(late));
        await().atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 2);
        assertThat(line.chatWith(ALICE).get(1)).extracting(FakeLine.Delivered::via, FakeLine.Delivered::text).containsExactly("push", "echo: second");
        assertThat(line.refused).as("the stale token was not tried").hasSize(1);
    }

    @Test
    void anUnknownUser_getsAPairingCode_andNoTurn() {
        herald.start();

        line.post(FakeLine.body(line.text(STRANGER, "01HZX1A1000000000000000005", "let me in")));

        await().atMost(WAIT).until(() -> line.chatWith(STRANGER).size() == 1);
        assertThat(line.chatWith(STRANGER).getFirst().text()).contains("pairing code").contains("herald pairing approve line");
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
    }

    @Test
    void followJoinLeaveAndUnknownEvents_startNoTurn_andLinesVerifyCall_is200_andTheNextMessageIsAnswered() {
        herald.start();

        assertThat(line.post("{\"destination\":\"" + FakeLine.BOT_USER_ID + "\",\"events\":[]}")).as("the console's Verify button").isEqualTo(200);
        assertThat(line.post(FakeLine.body(line.follow(ALICE, "01HZX1A1000000000000000006")))).isEqualTo(200);
        assertThat(line.post("{\"destination\":\"x\",\"events\":[{\"type\":\"unsend\",\"webhookEventId\":\"01HZX1A1000000000000000007\","
                + "\"mode\":\"active\",\"timestamp\":1,\"source\":{\"type\":\"user\",\"userId\":\"" + ALICE + "\"},\"unsend\":{\"messageId\":\"1\"}}]}"))
                .isEqualTo(200);
        assertThat(line.post("not json")).as("signed but unreadable: skipped with a log line").isEqualTo(200);
        line.post(FakeLine.body(line.text(ALICE, "01HZX1A1000000000000000008", "still there?")));

        await().atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 1);
        assertThat(line.chatWith(ALICE).getFirst().text()).isEqualTo("echo: still there?");
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void anApprovalQuestion_carriesQuickReplyButtons_andAPressedOne_reachesTheGatewayAsItsCommand() {
        herald.start();

        var result = herald.current.send(new OutboundMessage(ChatTarget.of(ALICE),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.", MessageKind.PROMPT, null, null, 1, 1));

        assertThat(result.success()).isTrue();
        FakeLine.Delivered prompt = line.chatWith(ALICE).getFirst();
        assertThat(prompt.text()).contains("rm -rf build");
        var items = prompt.message().path("quickReply").path("items");
        assertThat(items).hasSize(3);
        assertThat(items.findValuesAsText("data")).containsExactly("/approve", "/approve always", "/deny");
        assertThat(items.findValuesAsText("type")).contains("postback");
        assertThat(items.findValuesAsText("label")).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(20));

        line.post(FakeLine.body(line.postback(ALICE, "01HZX1A1000000000000000009", "/deny")));
        await().atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 2);
        assertThat(herald.agent.calls()).as("a command, answered inline").isEmpty();
        assertThat(line.chatWith(ALICE).get(1).text()).isNotBlank().doesNotStartWith("echo:");
    }

    @Test
    void aRunningTurn_showsTheLoadingAnimation_inTheOneToOneChat() {
        herald.start();
        var hold = herald.agent.hold("thought about it");

        line.post(FakeLine.body(line.text(ALICE, "01HZX1A100000000000000000A", "think hard")));
        hold.awaitArrival(WAIT);

        await().atMost(WAIT).until(() -> line.loading.contains(ALICE));
        hold.release();
        await().atMost(WAIT).until(() -> line.chatWith(ALICE).size() == 1);
    }

    @Test
    void aLongAnswer_isOneRequestOfSeveralTexts_eachWithinLinesLimit() {
        herald.start();
        String paragraph = "word ".repeat(399) + "end.\n\n"; // 2,001 characters
        herald.agent.reply(paragraph.repeat(6).strip());

        line.post(FakeLine.body(line.text(ALICE, "01HZX1A100000000000000000B", "tell me everything")));

        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        var texts = line.chatWith(ALICE);
        assertThat(texts).hasSizeBetween(3, 5).allSatisfy(d -> {
            assertThat(d.via()).as("one reply token, one request").isEqualTo("reply");
            assertThat(d.text().length()).isLessThanOrEqualTo(5000);
        });
        assertThat(String.join("", texts.stream().map(FakeLine.Delivered::text).toList()).replaceAll("\\s", ""))
                .isEqualTo(paragraph.repeat(6).replaceAll("\\s", ""));
    }

    @Test
    void aRateLimit_isWaitedOut_andARefusal_isLoggedWithLinesDetails_neverTheToken() {
        herald.start();
        line.errors.add(429);
        line.errors.add(429);

        var sent = herald.current.send(new OutboundMessage(ChatTarget.of(ALICE), "hi", MessageKind.NOTICE, null, null, 1, 1));
        assertThat(sent.success()).isFalse();
        assertThat(sent.retryable()).isTrue();
        assertThat(sent.retryAfter()).isEqualTo(Duration.ofMillis(200));

        line.errors.clear();
        line.errors.add(400);
        var refused = herald.current.send(new OutboundMessage(ChatTarget.of(ALICE), "hi", MessageKind.NOTICE, null, null, 1, 1));
        assertThat(refused.retryable()).isFalse();
        assertThat(refused.error()).contains("HTTP 400").contains("messages[0].text: May not be empty").doesNotContain(FakeLine.TOKEN);
        assertThat(line.chatWith(ALICE)).isEmpty();
    }
}
