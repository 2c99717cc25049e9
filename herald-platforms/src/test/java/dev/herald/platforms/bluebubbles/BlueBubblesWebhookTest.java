package dev.herald.platforms.bluebubbles;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The BlueBubbles server's calls to Herald's webhook: a message with the right secret in the URL is answered through
 * {@code message/text} as plain text with a tempGuid; a missing or wrong secret is 401 before anything is stored; the
 * Mac's own messages (Herald's sends echoed back), tapbacks and other event types start nothing; a redelivered guid is
 * answered once; group chats answer only when the bot is named.
 */
class BlueBubblesWebhookTest {
    static final String ALICE = "+15551234567";
    static final String BOB = "bob@example.com";
    static final String STRANGER = "+447700900123";
    static final String GROUP = "iMessage;+;chat493057283482";

    final FakeBlueBubbles bb = new FakeBlueBubbles();
    @RegisterExtension
    final GatewayFixture herald = bb.herald(ALICE, BOB).withPairing();

    @Test
    void aMessage_isAnsweredInItsChat_asPlainText_withATempGuid_byAppleScript() {
        herald.start();
        herald.agent.reply("**Done**: see [the page](https://example.org/r).");

        assertThat(bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "8A1B-0001", "write the report")))).isEqualTo(200);

        String chat = FakeBlueBubbles.dmChat(ALICE);
        await().atMost(WAIT).until(() -> bb.sentTo(chat).size() == 1);
        var reply = bb.sentTo(chat).getFirst();
        assertThat(reply.text()).as("iMessage shows no markup").isEqualTo("Done: see the page (https://example.org/r).");
        assertThat(reply.fields().get("method")).isEqualTo("apple-script");
        assertThat(reply.fields().get("tempGuid")).matches("[0-9a-f-]{36}");
        assertThat(reply.fields()).as("replies to a message need the Private API").doesNotContainKey("selectedMessageGuid");
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("write the report"));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        var turn = herald.turns(TurnState.DELIVERED).getFirst();
        assertThat(turn.source().userId()).isEqualTo(ALICE);
        assertThat(turn.source().chatId()).isEqualTo(chat);
        assertThat(turn.platformMessageId()).isEqualTo("8A1B-0001");
        await().atMost(WAIT).until(() -> bb.echoes.get() == 1);
        assertThat(herald.turns()).as("the server echoing Herald's own send (isFromMe) starts nothing").hasSize(1);
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aMissingOrWrongSecret_is401_andNothingIsStored() {
        herald.start();
        String body = FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "8A1B-0002", "hello"));

        assertThat(bb.post(body, null)).as("no secret").isEqualTo(401);
        assertThat(bb.post(body, "")).as("an empty secret").isEqualTo(401);
        assertThat(bb.post(body, "not-the-secret")).as("a wrong secret").isEqualTo(401);
        assertThat(bb.post(body, FakeBlueBubbles.SECRET.substring(0, 20))).as("a prefix of it").isEqualTo(401);
        assertThat(bb.post(body, FakeBlueBubbles.SECRET + "x")).as("longer").isEqualTo(401);
        assertThat(bb.post(body, FakeBlueBubbles.PASSWORD)).as("the server password is not the webhook secret").isEqualTo(401);

        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> herald.turns().isEmpty());
        assertThat(bb.sentTo(FakeBlueBubbles.dmChat(ALICE))).isEmpty();
        assertThat(bb.post(body)).as("the right secret").isEqualTo(200);
        await().atMost(WAIT).until(() -> bb.sentTo(FakeBlueBubbles.dmChat(ALICE)).size() == 1);
    }

    @Test
    void aRedeliveredGuid_isAnsweredOnce() {
        herald.start();
        String body = FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "8A1B-0003", "once please"));

        assertThat(bb.post(body)).isEqualTo(200);
        assertThat(bb.post(body)).as("the server delivering it again").isEqualTo(200);
        var edited = FakeBlueBubbles.dm(ALICE, "8A1B-0003", "once please");
        assertThat(bb.post(FakeBlueBubbles.event("updated-message", edited))).as("its delivery/read update").isEqualTo(200);

        String chat = FakeBlueBubbles.dmChat(ALICE);
        await().atMost(WAIT).until(() -> bb.sentTo(chat).size() == 1);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> bb.sentTo(chat).size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void ownMessages_tapbacks_andOtherEvents_startNoTurn_andTheNextMessageIsAnswered() {
        herald.start();
        var own = FakeBlueBubbles.dm(ALICE, "8A1B-0004", "typed on the Mac").put("isFromMe", true);
        var tapback = FakeBlueBubbles.dm(ALICE, "8A1B-0005", "Loved “hello”").put("associatedMessageGuid", "p:0/8A1B-0002")
                .put("associatedMessageType", 2000);
        var typing = LocalJsonServer.JSON.createObjectNode().put("display", true).put("guid", FakeBlueBubbles.dmChat(ALICE));

        assertThat(bb.post(FakeBlueBubbles.newMessage(own))).isEqualTo(200);
        assertThat(bb.post(FakeBlueBubbles.newMessage(tapback))).isEqualTo(200);
        assertThat(bb.post(FakeBlueBubbles.event("typing-indicator", typing))).isEqualTo(200);
        assertThat(bb.post(FakeBlueBubbles.event("chat-read-status-changed", typing))).isEqualTo(200);
        assertThat(bb.post("not json at all")).as("unreadable: skipped with a log line").isEqualTo(200);
        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "8A1B-0006", "still there?")));

        await().atMost(WAIT).until(() -> bb.sentTo(FakeBlueBubbles.dmChat(ALICE)).size() == 1);
        assertThat(bb.sentTo(FakeBlueBubbles.dmChat(ALICE)).getFirst().text()).isEqualTo("echo: still there?");
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void inAGroup_onlyAMessageNamingTheBot_startsATurn_answeredInTheGroup() {
        herald.start();

        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.group(GROUP, ALICE, "8A1B-0101", "lunch at noon?")));
        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.group(GROUP, ALICE, "8A1B-0102", "the heraldry talk was great")));
        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.group(GROUP, BOB, "8A1B-0103", "Herald, summarize the thread")));

        await().atMost(WAIT).until(() -> bb.sentTo(GROUP).size() == 1);
        assertThat(bb.sentTo(GROUP).getFirst().text()).as("the name is not part of the question").isEqualTo("echo: summarize the thread");
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.source().userId()).isEqualTo(BOB);
            assertThat(t.source().chatId()).isEqualTo(GROUP);
            assertThat(t.source().chatName()).isEqualTo("Weekend plans");
        });
        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.group(GROUP, ALICE, "8A1B-0104", "@Herald what do you think?")));
        await().atMost(WAIT).until(() -> bb.sentTo(GROUP).size() == 2);
        assertThat(bb.sentTo(GROUP).getLast().text()).isEqualTo("echo: what do you think?");
        assertThat(herald.agent.calls()).hasSize(2);
    }

    @Test
    void otherMentionNames_changeWhoIsAddressed() {
        bb.settings = bb.settings.withMentionNames(List.of("Jarvis", "bot"));
        herald.start();

        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.group(GROUP, ALICE, "8A1B-0201", "herald, are you there?")));
        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.group(GROUP, ALICE, "8A1B-0202", "JARVIS what time is it")));
        await().atMost(WAIT).until(() -> bb.sentTo(GROUP).size() == 1);
        assertThat(bb.sentTo(GROUP).getFirst().text()).isEqualTo("echo: what time is it");
        await().during(Duration.ofMillis(200)).atMost(WAIT).until(() -> bb.sentTo(GROUP).size() == 1);
    }

    @Test
    void withRequireMentionOff_everyGroupMessageStartsATurn() {
        bb.settings = bb.settings.withRequireMention(false);
        herald.start();

        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.group(GROUP, ALICE, "8A1B-0203", "lunch at noon?")));

        await().atMost(WAIT).until(() -> bb.sentTo(GROUP).size() == 1);
        assertThat(bb.sentTo(GROUP).getLast().text()).isEqualTo("echo: lunch at noon?");
    }

    @Test
    void anUnknownAddress_getsAPairingCode_andNoTurn() {
        herald.start();

        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(STRANGER, "8A1B-0301", "let me in")));

        await().atMost(WAIT).until(() -> bb.sentTo(FakeBlueBubbles.dmChat(STRANGER)).size() == 1);
        assertThat(bb.sentTo(FakeBlueBubbles.dmChat(STRANGER)).getFirst().text()).contains("pairing code")
                .contains("herald pairing approve bluebubbles");
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
    }

    @Test
    void withThePrivateApi_theReplyAnswersTheMessage_theChatIsMarkedRead_typingShows_andApprovalsAreTyped() {
        bb.settings = bb.settings.withSendMethod("private-api");
        herald.start();
        var hold = herald.agent.hold("thought about it");

        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "8A1B-0401", "think hard")));
        hold.awaitArrival(WAIT);

        String chat = FakeBlueBubbles.dmChat(ALICE);
        await().atMost(WAIT).until(() -> !bb.calls("typing").isEmpty() && !bb.calls("read").isEmpty());
        assertThat(bb.calls("typing").getFirst().chatGuid()).isEqualTo(chat);
        hold.release();
        await().atMost(WAIT).until(() -> bb.sentTo(chat).size() == 1);
        var reply = bb.sentTo(chat).getFirst();
        assertThat(reply.text()).isEqualTo("thought about it");
        assertThat(reply.fields()).containsEntry("method", "private-api").containsEntry("selectedMessageGuid", "8A1B-0401");
        await().atMost(WAIT).until(() -> bb.calls("typing-stop").size() == 1);

        var result = herald.current.send(new OutboundMessage(ChatTarget.of(chat),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.", MessageKind.PROMPT, null, null, 1, 1));
        assertThat(result.success()).isTrue();
        assertThat(herald.current.capabilities().buttons()).as("iMessage has no buttons: approvals are typed").isFalse();
        assertThat(bb.sentTo(chat).getLast().text()).contains("rm -rf build").contains("/approve");
    }
}
