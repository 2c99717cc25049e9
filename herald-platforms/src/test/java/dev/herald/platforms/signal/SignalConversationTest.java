package dev.herald.platforms.signal;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE_UUID;
import static dev.herald.platforms.signal.FakeSignalCli.BOB;
import static dev.herald.platforms.signal.FakeSignalCli.BOB_UUID;
import static dev.herald.platforms.signal.FakeSignalCli.GROUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Signal adapter in conversation: a real gateway and store, the real adapter, a fake signal-cli daemon on loopback. */
class SignalConversationTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeSignalCli signal = new FakeSignalCli();
    java.util.function.UnaryOperator<SignalSettings> settings = s -> s;
    @RegisterExtension
    final GatewayFixture herald = signal.herald(s -> s[0] = settings.apply(s[0]), ALICE_UUID).withPairing();

    private TurnState stateOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().map(TurnRecord::state).orElse(null);
    }

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void aDirectMessage_getsOneReply_toTheSendersUuid_inTheirOwnSession() {
        herald.start();
        herald.agent.reply("hello back");

        long ts = signal.dm(ALICE_UUID, ALICE, "hi there");

        await().atMost(WAIT).during(SETTLE).until(() -> signal.calls("send").size() == 1);
        JsonNode send = signal.calls("send").getFirst().params();
        assertThat(send.path("recipient")).extracting(JsonNode::asText).containsExactly(ALICE_UUID);
        assertThat(send.path("message").asText()).isEqualTo("hello back");
        assertThat(send.path("account").asText()).isEqualTo(FakeSignalCli.BOT);
        assertThat(send.has("quoteTimestamp")).as("a direct message needs no quote").isFalse();
        assertThat(send.has("groupId")).isFalse();
        assertThat(herald.agent.messages()).containsExactly("hi there");
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.sessionKey().value()).isEqualTo("agent:main:signal:dm:" + ALICE_UUID);
            assertThat(t.platformMessageId()).isEqualTo(ALICE_UUID + ":" + ts);
        });
    }

    @Test
    void inAGroup_onlyAMessageMentioningTheBot_isAnswered_quotingIt_inASessionPerUser() {
        herald.start();

        signal.group(ALICE_UUID, ALICE, "just chatting with friends", false);
        long asked = signal.group(ALICE_UUID, ALICE, "what is 2+2?", true);

        await().atMost(WAIT).during(SETTLE).until(() -> signal.calls("send").size() == 1);
        JsonNode send = signal.calls("send").getFirst().params();
        assertThat(send.path("groupId").asText()).isEqualTo(GROUP);
        assertThat(send.has("recipient")).isFalse();
        assertThat(send.path("message").asText()).isEqualTo("echo: what is 2+2?");
        assertThat(send.path("quoteTimestamp").asLong()).as("the reply quotes the asker's message").isEqualTo(asked);
        assertThat(send.path("quoteAuthor").asText()).isEqualTo(ALICE_UUID);
        assertThat(herald.agent.messages()).as("the mention is taken out of the text").containsExactly("what is 2+2?");
        assertThat(herald.turns()).singleElement().satisfies(t ->
                assertThat(t.sessionKey().value()).isEqualTo("agent:main:signal:group:" + GROUP + ":" + ALICE_UUID));
    }

    @Test
    void anUnknownSender_getsAPairingCodeInADirectMessage_andNothingInAGroup_thenIsAnsweredOnceApproved() {
        herald.start();

        signal.group(BOB_UUID, BOB, "let me in", true);
        signal.dm(BOB_UUID, BOB, "let me in");

        await().atMost(WAIT).until(() -> signal.textsTo(BOB_UUID).stream().anyMatch(m -> m.contains("herald pairing approve signal ")));
        signal.group(ALICE_UUID, ALICE, "and me?", true);
        await().atMost(WAIT).until(() -> signal.textsTo(GROUP).size() == 1);
        assertThat(signal.textsTo(GROUP)).as("nothing for the stranger in the group").containsExactly("echo: and me?");
        assertThat(herald.agent.messages()).containsExactly("and me?");
        Matcher m = Pattern.compile("herald pairing approve signal ([A-Z0-9]{8})").matcher(String.join("\n", signal.textsTo(BOB_UUID)));
        assertThat(m.find()).isTrue();

        assertThat(herald.pairing.approve(SignalAdapter.PLATFORM, m.group(1)).approved()).isTrue();
        signal.dm(BOB_UUID, BOB, "now?");
        await().atMost(WAIT).until(() -> signal.textsTo(BOB_UUID).contains("echo: now?"));
        assertThat(herald.turns()).extracting(TurnRecord::text).containsExactlyInAnyOrder("and me?", "now?");
    }

    @Test
    void theSameMessageHandedOverTwice_getsOneTurnAndOneReply() {
        herald.start();
        long ts = signal.nextTimestamp();
        var envelope = FakeSignalCli.envelope(ALICE_UUID, ALICE, ts, FakeSignalCli.data(ts, "only once please"));

        signal.deliver(envelope);
        signal.deliver(envelope);

        await().atMost(WAIT).during(SETTLE).until(() -> signal.calls("send").size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void receiptsTypingAndTheBotsOwnMessages_startNoTurn() {
        herald.start();
        var receipt = FakeSignalCli.envelope(ALICE_UUID, ALICE, signal.nextTimestamp(), null);
        ((com.fasterxml.jackson.databind.node.ObjectNode) receipt.get("envelope")).putObject("receiptMessage").put("when", 1).put("isDelivery", true);
        var typing = FakeSignalCli.envelope(ALICE_UUID, ALICE, signal.nextTimestamp(), null);
        ((com.fasterxml.jackson.databind.node.ObjectNode) typing.get("envelope")).putObject("typingMessage").put("action", "STARTED");
        long own = signal.nextTimestamp();

        signal.deliver(receipt);
        signal.deliver(typing);
        signal.deliver(FakeSignalCli.envelope(FakeSignalCli.BOT_UUID, FakeSignalCli.BOT, own, FakeSignalCli.data(own, "my own words")));
        signal.dm(ALICE_UUID, ALICE, "a person");

        await().atMost(WAIT).during(SETTLE).until(() -> signal.calls("send").size() == 1);
        assertThat(herald.agent.messages()).containsExactly("a person");
    }

    @Test
    void whileATurnRuns_theChatShowsTyping() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("done thinking");

        signal.dm(ALICE_UUID, ALICE, "think hard");

        hold.awaitArrival(WAIT);
        await().atMost(WAIT).until(() -> signal.calls("sendTyping").stream()
                .anyMatch(c -> c.params().path("recipient").path(0).asText().equals(ALICE_UUID)));
        hold.release();
        await().atMost(WAIT).until(() -> signal.textsTo(ALICE_UUID).equals(List.of("done thinking")));
    }

    @Test
    void aMarkdownAnswer_isSentAsSignalText_withStyleRanges() {
        herald.start();
        herald.agent.reply("# Plan\n\n**Bold** move, *then* `run()` and ~~not~~ [docs](https://docs.herald.invalid/x)");

        signal.dm(ALICE_UUID, ALICE, "style it");

        await().atMost(WAIT).until(() -> signal.calls("send").size() == 1);
        JsonNode send = signal.calls("send").getFirst().params();
        String text = "Plan\n\nBold move, then run() and not docs (https://docs.herald.invalid/x)";
        assertThat(send.path("message").asText()).isEqualTo(text);
        assertThat(send.path("textStyle")).extracting(JsonNode::asText).containsExactly("0:4:BOLD", "6:4:BOLD", "17:4:ITALIC",
                "22:5:MONOSPACE", "32:3:STRIKETHROUGH");
    }

    @Test
    void aSenderListedByNumber_isKnownByTheNumber_whenSignalShowsIt_andByUuidWhenTheNumberIsHidden() {
        settings = s -> s.withAllowedUsers(List.of(ALICE));
        herald.allow(ALICE).start();

        signal.dm(ALICE_UUID, ALICE, "by number");
        await().atMost(WAIT).until(() -> signal.textsTo(ALICE_UUID).contains("echo: by number"));
        signal.dm(ALICE_UUID, null, "number hidden");

        await().atMost(WAIT).until(() -> signal.textsTo(ALICE_UUID).stream().anyMatch(m -> m.contains("herald pairing approve signal ")));
        assertThat(herald.turns()).singleElement().satisfies(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    @Test
    void aSendTheDaemonRefuses_isReportedWithSignalCliWords_andNotRetried() {
        herald.start();
        signal.sendFailures.add(FakeSignalCli.failure(-1, "Failed to send message", "UNREGISTERED_FAILURE", null));

        signal.dm(ALICE_UUID, ALICE, "answer me");

        await().atMost(WAIT).until(() -> stateOf("answer me") == TurnState.UNDELIVERABLE);
        assertThat(turnOf("answer me").deliveryError()).contains("signal - send refused: the recipient is not registered with Signal")
                .contains("Failed to send message").doesNotContain("echo: answer me");
        assertThat(signal.calls("send")).hasSize(1);
    }

    @Test
    void aRateLimitedSend_isSentAgainAfterSignalsWait_andArrivesOnce() {
        herald.start();
        signal.sendFailures.add(FakeSignalCli.failure(-5, "Failed to send message due to rate limiting", "RATE_LIMIT_FAILURE", 1L));

        signal.dm(ALICE_UUID, ALICE, "busy day");

        await().atMost(WAIT).until(() -> stateOf("busy day") == TurnState.DELIVERED);
        assertThat(signal.calls("send")).hasSize(2);
        assertThat(signal.textsTo(ALICE_UUID)).containsExactly("echo: busy day", "echo: busy day"); // the first was refused
    }
}
