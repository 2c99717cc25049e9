package dev.herald.platforms.dingtalk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageEvent;
import java.net.URI;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * Reading robot messages and the choices around them, without a connection: message types, the robot's own messages,
 * outside senders, group gating switched off, which webhooks Herald may POST to, frame answers and markdown titles.
 */
class DingTalkMessagesTest {
    private static final DingTalkSettings SETTINGS = DingTalkSettings.of("dingid", "secret-x").withApiBase(URI.create("http://127.0.0.1:9"));

    private static ObjectNode message(String type) {
        return FakeDingTalk.JSON.createObjectNode().put("msgId", "m1").put("conversationId", "cidG").put("conversationType", "1")
                .put("senderStaffId", "staff1").put("senderId", "$:s1").put("chatbotUserId", "$:bot").put("msgtype", type);
    }

    private static DingTalkMessages.Inbound read(DingTalkSettings s, ObjectNode m) {
        return new DingTalkMessages(s, Clock.systemUTC()).normalise(m).orElse(null);
    }

    @Test
    void richTextAudioAndFiles_becomeTextAndMediaReferences() {
        ObjectNode rich = message("richText");
        rich.putObject("content").putArray("richText").add(FakeDingTalk.JSON.createObjectNode().put("text", "see "))
                .add(FakeDingTalk.JSON.createObjectNode().put("type", "picture").put("downloadCode", "dc-pic"));
        MessageEvent r = read(SETTINGS, rich).event();
        assertThat(r.text()).isEqualTo("see");
        assertThat(r.media()).extracting(MessageEvent.MediaRef::ref).containsExactly("dc-pic");

        ObjectNode audio = message("audio");
        audio.putObject("content").put("downloadCode", "dc-voice").put("recognition", "spoken question");
        MessageEvent a = read(SETTINGS, audio).event();
        assertThat(a.text()).isEqualTo("spoken question");
        assertThat(a.media()).extracting(MessageEvent.MediaRef::kind).containsExactly("audio");

        ObjectNode file = message("file");
        file.putObject("content").put("downloadCode", "dc-file").put("fileName", "report.pdf");
        assertThat(read(SETTINGS, file).event().media()).singleElement().satisfies(f -> assertThat(f.name()).isEqualTo("report.pdf"));

        assertThat(read(SETTINGS, message("interactiveCard"))).as("a type Herald does not read").isNull();
    }

    @Test
    void theRobotsOwnMessages_areIgnored_andOutsideSenders_areKnownBySenderId() {
        ObjectNode own = message("text").put("senderId", "$:bot");
        own.putObject("text").put("content", "my own echo");
        assertThat(read(SETTINGS, own)).isNull();

        ObjectNode outside = message("text");
        outside.remove("senderStaffId");
        outside.putObject("text").put("content", "hi from outside");
        assertThat(read(SETTINGS, outside).event().source().userId()).isEqualTo(":s1");

        ObjectNode base64 = message("text").put("conversationType", "2").put("isInAtList", true).put("conversationId", "cidAb/Cd+e==")
                .put("msgId", "msgX/Y==");
        base64.putObject("text").put("content", "ids with slashes");
        MessageEvent e = read(SETTINGS, base64).event();
        assertThat(e.source().chatId()).isEqualTo("cidAb_Cd+e==");
        assertThat(DingTalkMessages.conversationId(e.source().chatId())).as("the group's id for the send API").isEqualTo("cidAb/Cd+e==");
        assertThat(e.messageId()).isEqualTo("msgX_Y==");
    }

    @Test
    void withoutRequireMention_everyGroupMessage_startsATurn_inTheGroupsSession() {
        ObjectNode m = message("text").put("conversationType", "2").put("isInAtList", false);
        m.putObject("text").put("content", "no mention");
        assertThat(read(SETTINGS, m)).isNull();

        DingTalkMessages.Inbound in = read(SETTINGS.withRequireMention(false), m);
        assertThat(in.event().source().chatType()).isEqualTo(ChatType.GROUP);
        assertThat(in.event().source().chatId()).isEqualTo("cidG");
    }

    @Test
    void onlyWebhooksOnDingTalksHost_orTheConfiguredApiHost_arePostedTo() {
        DingTalkApi api = new DingTalkApi(DingTalkSettings.of("dingid", "secret-x"), FakeDingTalk.timing(), Clock.systemUTC());
        assertThat(api.webhookAllowed("https://oapi.dingtalk.com/robot/sendBySession?session=abc")).isTrue();
        assertThat(api.webhookAllowed("https://evil.example/robot/sendBySession?session=abc")).isFalse();
        assertThat(api.webhookAllowed("http://127.0.0.3/latest/meta-data/")).isFalse();
        assertThat(api.webhookAllowed("file:///etc/passwd")).isFalse();
        assertThat(api.webhookAllowed("not a url at all")).isFalse();
    }

    @Test
    void aFramesAnswer_carriesItsMessageId_andTitlesAreTheFirstLineWithoutMarks() throws Exception {
        var ack = FakeDingTalk.JSON.readTree(DingTalkStream.ack("id-\"7", "{\"opaque\":1}"));
        assertThat(ack.path("code").asInt()).isEqualTo(200);
        assertThat(ack.path("headers").path("messageId").asText()).isEqualTo("id-\"7");
        assertThat(ack.path("data").asText()).isEqualTo("{\"opaque\":1}");

        assertThat(DingTalkAdapter.title("## **Result**\nmore")).isEqualTo("Result");
        assertThat(DingTalkAdapter.title("一二三四五六七八九十一二三四五六七八九十一二")).hasSize(20).endsWith("…");
        assertThat(DingTalkAdapter.title("   ")).isEqualTo("Herald");
    }
}
