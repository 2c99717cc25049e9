package dev.herald.platforms.dingtalk;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stream frames from a hostile or broken server: the frame parser and the robot message reader never throw and make
 * only well-formed events, and the running adapter survives a stream of malformed frames, still answers the next good
 * message, and has stored turns only for allowed users.
 */
@Tag("fuzz")
class DingTalkFuzzTest {
    static final List<String> CORPUS = List.of(
            """
            {"specVersion":"1.0","type":"CALLBACK","headers":{"messageId":"f-1","topic":"/v1.0/im/bot/messages/get","contentType":"application/json","time":"1712000000000"},
             "data":"{\\"msgId\\":\\"m1\\",\\"conversationId\\":\\"cidDM1\\",\\"conversationType\\":\\"1\\",\\"senderStaffId\\":\\"staff1\\",\\"senderNick\\":\\"A\\",\\"msgtype\\":\\"text\\",\\"text\\":{\\"content\\":\\"hi there\\"},\\"sessionWebhook\\":\\"https://oapi.dingtalk.com/robot/sendBySession?session=x\\",\\"sessionWebhookExpiredTime\\":1712000000000,\\"chatbotUserId\\":\\"bot\\"}"}""",
            """
            {"specVersion":"1.0","type":"CALLBACK","headers":{"messageId":"f-2","topic":"/v1.0/im/bot/messages/get"},
             "data":"{\\"msgId\\":\\"m2\\",\\"conversationId\\":\\"cidG\\",\\"conversationType\\":\\"2\\",\\"senderStaffId\\":\\"staff2\\",\\"isInAtList\\":true,\\"msgtype\\":\\"richText\\",\\"content\\":{\\"richText\\":[{\\"text\\":\\"look\\"},{\\"type\\":\\"picture\\",\\"downloadCode\\":\\"dc1\\"}]}}"}""",
            """
            {"specVersion":"1.0","type":"CALLBACK","headers":{"messageId":"f-3","topic":"/v1.0/im/bot/messages/get"},
             "data":"{\\"msgId\\":\\"m3\\",\\"conversationId\\":\\"cidDM3\\",\\"conversationType\\":\\"1\\",\\"senderId\\":\\"$:x\\",\\"msgtype\\":\\"audio\\",\\"content\\":{\\"downloadCode\\":\\"dc2\\",\\"recognition\\":\\"spoken words\\"}}"}""",
            """
            {"specVersion":"1.0","type":"SYSTEM","headers":{"messageId":"f-4","topic":"ping","contentType":"application/json"},"data":"{\\"opaque\\":\\"o\\"}"}""",
            """
            {"specVersion":"1.0","type":"EVENT","headers":{"messageId":"f-5","topic":"chat_update_title","eventType":"chat_update_title"},"data":"{}"}""",
            """
            {"specVersion":"1.0","type":"SYSTEM","headers":{"messageId":"f-6","topic":"disconnect"},"data":"{\\"reason\\":\\"restart\\"}"}""");

    final FakeDingTalk dingtalk = new FakeDingTalk();
    @RegisterExtension
    final GatewayFixture herald = dingtalk.herald("staff1", "staff2");

    @Test
    void frameAndMessageReading_neverThrow_andEveryEventTheyMakeIsWellFormed() {
        DingTalkMessages messages = new DingTalkMessages(dingtalk.settings(), Clock.systemUTC());
        Fuzzer.of("dingtalk frame", CORPUS, 500).run(input -> {
            Frame f = Frame.parse(input);
            if (f == null) {
                return;
            }
            assertThat(f.messageId()).isNotBlank();
            JsonNode data = f.json();
            if (data != null && data.isObject()) {
                messages.normalise(data).ifPresent(in -> wellFormed(in.event()));
            }
        }, t -> false);
    }

    @Test
    void theAdapter_survivesMalformedFrames_andAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("dingtalk wire", CORPUS, 300).run(frame -> {
            if (dingtalk.connected()) {
                try {
                    dingtalk.raw(frame);
                } catch (IllegalStateException reconnecting) {
                    // between two connections (a fuzzed disconnect): this frame is lost, as on DingTalk
                }
            }
        }, t -> false);

        int[] attempt = {0};
        await().atMost(WAIT.multipliedBy(2)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            if (dingtalk.connected()) {
                attempt[0]++;
                dingtalk.deliver(dingtalk.dm("m-final", "staff1", "still there?", Instant.now().plusSeconds(3600)));
            }
            return dingtalk.sent.stream().anyMatch(s -> s.text().equals("echo: still there?"));
        });
        assertThat(dingtalk.sent.stream().filter(s -> s.text().equals("echo: still there?"))).as("answered once").hasSize(1);
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isIn("staff1", "staff2"));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        assertThat(e.messageId()).isNotBlank();
    }
}
