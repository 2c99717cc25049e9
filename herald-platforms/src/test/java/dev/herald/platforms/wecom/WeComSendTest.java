package dev.herald.platforms.wecom;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.GatewayFixture;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replies through message/send: the access token fetched again when WeCom says it expired (42001), WeCom's busy (-1) and
 * rate-limit (45009) answers waited out, plain text when markdown is off, and approvals as a button_interaction card
 * whose button press comes back as a template_card_event and is the command it names.
 */
class WeComSendTest {
    static final String ZHANG = WeComCallbackTest.ZHANG;

    final FakeWeCom wecom = new FakeWeCom();
    @RegisterExtension
    final GatewayFixture herald = wecom.herald(ZHANG);

    @Test
    void anExpiredToken_isFetchedAgain_andTheReplyStillGoesOut() {
        herald.start();
        wecom.post(FakeWeCom.text(ZHANG, "7340005541298100001", "first"));
        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);

        wecom.expireTokens();
        wecom.post(FakeWeCom.text(ZHANG, "7340005541298100002", "second"));

        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 2);
        assertThat(wecom.sentTo(ZHANG).get(1).content()).isEqualTo("echo: second");
        assertThat(wecom.tokenCalls.get()).as("the start's token, then one after 42001").isEqualTo(2);
        assertThat(wecom.sendCalls.get()).as("the refused call and its repeat").isEqualTo(3);
    }

    @Test
    void systemBusy_andTheRateLimit_areWaitedOut_andTheReplyGoesOutOnce() {
        herald.start();
        wecom.errors.add(-1);
        wecom.errors.add(45009);

        wecom.post(FakeWeCom.text(ZHANG, "7340005541298100003", "busy?"));

        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);
        assertThat(wecom.sentTo(ZHANG).getFirst().content()).isEqualTo("echo: busy?");
        assertThat(wecom.sendCalls.get()).isEqualTo(3);
    }

    @Test
    void aRefusedSecret_stopsTheStart_namingTheKeys_butNotTheSecret() {
        wecom.settings = WeComSettings.of(wecom.baseUrl(), FakeWeCom.CORP_ID, FakeWeCom.AGENT_ID, "wrong-secret-xyz", FakeWeCom.TOKEN,
                FakeWeCom.AES_KEY);
        WeComAdapter adapter = new WeComAdapter(wecom.settings, FakeWeCom.timing(), java.time.Clock.systemUTC(), herald.storage.platformState());
        var sink = new dev.herald.platforms.RecordingSink();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> adapter.start(sink)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("errcode 40001").hasMessageContaining("platforms.wecom.corp_secret").hasMessageNotContaining("wrong-secret-xyz");
        adapter.close();
    }

    @Test
    void withMarkdownOff_repliesArePlainText() {
        wecom.settings = wecom.settings.withMarkdown(false);
        herald.start();
        herald.agent.reply("# Title\n**bold** and `code`");

        wecom.post(FakeWeCom.text(ZHANG, "7340005541298100004", "plain please"));

        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);
        FakeWeCom.Sent s = wecom.sentTo(ZHANG).getFirst();
        assertThat(s.type()).isEqualTo("text");
        assertThat(s.content()).isEqualTo("Title\n\nbold and code");
    }

    @Test
    void anApprovalQuestion_isAButtonCard_andAPressedButton_isTheCommand() {
        herald.start();

        SendResult r = herald.current.send(new OutboundMessage(ChatTarget.of(ZHANG),
                "The agent wants to run `rm -rf build`.\nReply /approve, /approve always, or /deny within 5 min.", MessageKind.PROMPT, null,
                "evt-42", 1, 1));

        assertThat(r.success()).isTrue();
        FakeWeCom.Sent card = wecom.sentTo(ZHANG).getFirst();
        assertThat(card.type()).isEqualTo("template_card");
        var tc = card.body().path("template_card");
        assertThat(tc.path("card_type").asText()).isEqualTo("button_interaction");
        assertThat(tc.path("sub_title_text").asText()).contains("rm -rf build");
        assertThat(tc.path("task_id").asText()).matches("[A-Za-z0-9_@-]{1,128}");
        assertThat(tc.path("button_list").findValuesAsText("key")).containsExactly("herald_approve", "herald_approve_always", "herald_deny");

        long at = Instant.now().getEpochSecond();
        assertThat(wecom.post(FakeWeCom.cardEvent(ZHANG, at, "herald_deny"))).isEqualTo(200);
        assertThat(wecom.post(FakeWeCom.cardEvent(ZHANG, at, "herald_deny"))).as("WeCom's retry of the same event").isEqualTo(200);

        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() >= 2);
        await().during(java.time.Duration.ofMillis(400)).atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 2);
        assertThat(herald.agent.calls()).as("a command, answered inline, once").isEmpty();
        assertThat(wecom.sentTo(ZHANG).get(1).content()).isEqualTo("Nothing is waiting for approval.");

        herald.stop(dev.herald.core.gateway.StopKind.RESTART);
        herald.restart();
        assertThat(wecom.post(FakeWeCom.cardEvent(ZHANG, at, "herald_deny"))).as("a retry after a restart").isEqualTo(200);
        await().during(java.time.Duration.ofMillis(400)).atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 2);
        assertThat(WeComEvents.BUTTONS).containsEntry("herald_deny", "/deny");
    }
}
