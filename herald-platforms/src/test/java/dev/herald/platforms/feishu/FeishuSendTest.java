package dev.herald.platforms.feishu;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replies through the IM API: the tenant access token fetched again when the platform says it is invalid (99991663),
 * the rate limit (99991400) waited out, a uuid per part so a resend is not a second message, plain text when markdown is
 * off, the Lark base, and approvals as an interactive card whose button press comes back as card.action.trigger and is
 * the command it names, once.
 */
class FeishuSendTest {
    static final String ALICE = FeishuCallbackTest.ALICE;
    static final String DM = FeishuCallbackTest.DM;

    final FakeFeishu feishu = new FakeFeishu();
    @RegisterExtension
    final GatewayFixture herald = feishu.herald(ALICE);

    private static String event(String n, String text) {
        return FakeFeishu.text("ev-send-" + n, "om_send0000000000000000000000000" + n, DM, "p2p", ALICE, text);
    }

    @Test
    void anInvalidToken_isFetchedAgain_andTheReplyStillGoesOut() {
        herald.start();
        feishu.post(event("1", "first"));
        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);

        feishu.expireTokens();
        feishu.post(event("2", "second"));

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 2);
        assertThat(feishu.sentTo(DM).get(1).text()).isEqualTo("echo: second");
        assertThat(feishu.tokenCalls.get()).as("the start's token, then one after 99991663").isEqualTo(2);
        assertThat(feishu.sendCalls.get()).as("two sends, one of them refused and repeated").isEqualTo(3);
    }

    @Test
    void theRateLimit_isWaitedOut_andTheReplyGoesOutOnce() {
        herald.start();
        feishu.errors.add(99991400);
        feishu.errors.add(99991400);

        feishu.post(event("3", "busy?"));

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("echo: busy?");
        assertThat(feishu.sendCalls.get()).isEqualTo(3);
    }

    @Test
    void aPartSentTwiceWithTheSameIdempotencyKey_isOneMessage() {
        herald.start();
        OutboundMessage part = new OutboundMessage(ChatTarget.of(DM), "only once", MessageKind.REPLY, null, "evt-1", 1, 1, "turn-7/part-1");
        OutboundMessage other = new OutboundMessage(ChatTarget.of(DM), "only once", MessageKind.REPLY, null, "evt-1", 1, 1, "turn-8/part-1");

        SendResult first = herald.current.send(part);
        SendResult again = herald.current.send(part);
        herald.current.send(other);

        assertThat(first.success()).isTrue();
        assertThat(again.messageId()).as("the platform answers the first message for a repeated uuid").isEqualTo(first.messageId());
        assertThat(feishu.sentTo(DM)).hasSize(2);
        assertThat(FeishuAdapter.uuid(part, "text")).hasSizeLessThanOrEqualTo(50).isEqualTo(FeishuAdapter.uuid(part, "text"));
    }

    @Test
    void aRefusedSecret_stopsTheStart_namingTheKeys_butNotTheSecret() {
        feishu.settings = FeishuSettings.of(feishu.baseUrl(), FakeFeishu.APP_ID, "wrong-secret-xyz", FakeFeishu.TOKEN, FakeFeishu.ENCRYPT_KEY);
        FeishuAdapter adapter = new FeishuAdapter(feishu.settings, FakeFeishu.timing(), java.time.Clock.systemUTC(),
                herald.storage.platformState());
        var sink = new dev.herald.platforms.RecordingSink();
        assertThatThrownBy(() -> adapter.start(sink)).isInstanceOf(IllegalStateException.class).hasMessageContaining("code 10014")
                .hasMessageContaining("platforms.feishu.app_secret").hasMessageNotContaining("wrong-secret-xyz");
        adapter.close();
    }

    @Test
    void withMarkdownOff_repliesArePlainText() {
        feishu.settings = feishu.settings.withMarkdown(false);
        herald.start();
        herald.agent.reply("# Title\n**bold** and `code`");

        feishu.post(event("4", "plain please"));

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        FakeFeishu.Sent s = feishu.sentTo(DM).getFirst();
        assertThat(s.type()).isEqualTo("text");
        assertThat(s.text()).isEqualTo("Title\n\nbold and code");
    }

    @Test
    void markdown_isAPostWithAnMdRun() {
        assertThat(FeishuText.content("# Title\n**bold** [site](https://example.com)", true))
                .isEqualTo("{\"zh_cn\":{\"content\":[[{\"tag\":\"md\",\"text\":\"**Title**\\n\\n**bold** [site](https://example.com)\"}]]}}");
        assertThat(FeishuText.content("a \"quote\"", false)).isEqualTo("{\"text\":\"a \\\"quote\\\"\"}");
    }

    @Test
    void theDomain_choosesFeishuOrLark_andBaseUrlWins() {
        FeishuSettings d = FeishuSettings.defaults();
        assertThat(d.apiUri().toString()).isEqualTo("https://open.feishu.cn");
        FeishuSettings lark = new FeishuSettings(true, FeishuSettings.WEBHOOK, FakeFeishu.APP_ID, d.appSecret(), d.verificationToken(), d.encryptKey(), "lark", "",
                true, true, java.util.List.of(), false, java.util.List.of(), d.homeChannel(), d.unauthorizedDm());
        assertThat(lark.apiUri().toString()).isEqualTo("https://open.larksuite.com");
        assertThat(feishu.settings.apiUri().toString()).isEqualTo(feishu.baseUrl());
        assertThat(feishu.settings.toString()).doesNotContain(FakeFeishu.SECRET).doesNotContain(FakeFeishu.TOKEN)
                .doesNotContain(FakeFeishu.ENCRYPT_KEY);
    }

    @Test
    void anApprovalQuestion_isAnInteractiveCard_andAPressedButton_isTheCommand_once() throws Exception {
        herald.start();
        feishu.post(event("5", "hello"));
        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);

        SendResult r = herald.current.send(new OutboundMessage(ChatTarget.of(DM),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.", MessageKind.PROMPT, null,
                "evt-42", 1, 1, "turn-42/prompt"));

        assertThat(r.success()).isTrue();
        FakeFeishu.Sent card = feishu.sentTo(DM).get(1);
        assertThat(card.type()).isEqualTo("interactive");
        assertThat(card.content().path("elements").path(0).path("text").path("content").asText()).contains("rm -rf build");
        JsonNode buttons = card.content().path("elements").path(1).path("actions");
        assertThat(buttons.findValuesAsText("herald")).containsExactly("approve", "approve_always", "deny");
        JsonNode deny = buttons.path(2).path("value");
        assertThat(deny.path("chat_type").asText()).isEqualTo("p2p");

        String press = FakeFeishu.cardPress("ev-card-1", ALICE, DM, card.id(), deny);
        var answer = feishu.post(press, FakeFeishu.ENCRYPT_KEY, FakeFeishu.ENCRYPT_KEY, java.time.Instant.now());
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(LocalJsonServer.JSON.readTree(answer.body()).path("toast").path("content").asText()).isEqualTo("/deny");
        assertThat(feishu.post(press)).as("the platform's redelivery of the same press").isEqualTo(200);

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() >= 3);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 3);
        assertThat(herald.agent.calls()).as("only the first message reached the agent; the press is a command").hasSize(1);
        assertThat(feishu.sentTo(DM).get(2).text()).isEqualTo("Nothing is waiting for approval.");

        herald.stop(dev.herald.core.gateway.StopKind.RESTART);
        herald.restart();
        assertThat(feishu.post(press)).as("a redelivery after a restart").isEqualTo(200);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 3);

        String forged = FakeFeishu.cardPress("ev-card-2", ALICE, DM, card.id(), LocalJsonServer.JSON.createObjectNode().put("herald", "restart"));
        assertThat(feishu.post(forged)).as("a value that is not one of Herald's buttons is skipped").isEqualTo(200);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 3);
    }
}
