package dev.herald.platforms.wecom;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Callbacks from a broken (or hostile but signing) sender: the decryption and the XML reader throw only their own
 * refusals, and every event they make is well-formed; the running route answers every signed-and-encrypted body 200 or
 * 400, every unsigned one 401, and still answers the next good message.
 */
@Tag("fuzz")
class WeComFuzzTest {
    static final String ZHANG = WeComCallbackTest.ZHANG;
    static final List<String> CORPUS = List.of(
            FakeWeCom.text(ZHANG, "7340005541298400001", "hello **there**"),
            FakeWeCom.image("WangWu", "7340005541298400002", "1G6nrLmr5EC3MMb_-zK1dDdzmd0p7cNliYu9V5w7o8K0"),
            FakeWeCom.cardEvent(ZHANG, 1_700_000_000L, "herald_approve_always"),
            "<xml><ToUserName><![CDATA[ww9f3c2a71b5d08e4c]]></ToUserName><FromUserName><![CDATA[ZhangSan]]></FromUserName>"
                    + "<CreateTime>1357290913</CreateTime><MsgType><![CDATA[voice]]></MsgType><MediaId><![CDATA[media_id]]></MediaId>"
                    + "<Format><![CDATA[amr]]></Format><MsgId>1234567890123456</MsgId><AgentID>1000002</AgentID></xml>",
            "<xml><ToUserName><![CDATA[ww9f3c2a71b5d08e4c]]></ToUserName><FromUserName><![CDATA[ZhangSan]]></FromUserName>"
                    + "<CreateTime>1351776360</CreateTime><MsgType><![CDATA[location]]></MsgType><Location_X>23.134</Location_X>"
                    + "<Location_Y>113.358</Location_Y><Scale>20</Scale><Label><![CDATA[位置信息]]></Label><MsgId>1234567890123457</MsgId>"
                    + "<AgentID>1000002</AgentID></xml>",
            "<xml><ToUserName><![CDATA[ww9f3c2a71b5d08e4c]]></ToUserName><FromUserName><![CDATA[ZhangSan]]></FromUserName>"
                    + "<CreateTime>1408091189</CreateTime><MsgType><![CDATA[event]]></MsgType><Event><![CDATA[enter_agent]]></Event>"
                    + "<EventKey><![CDATA[]]></EventKey><AgentID>1000002</AgentID></xml>");

    final FakeWeCom wecom = new FakeWeCom();
    @RegisterExtension
    final GatewayFixture herald = wecom.herald(ZHANG);

    @Test
    void theDecryptionAndTheXmlReader_neverThrowButTheirRefusals_andEveryEventIsWellFormed() {
        WeComCrypto crypto = new WeComCrypto(FakeWeCom.TOKEN, FakeWeCom.AES_KEY, FakeWeCom.CORP_ID);
        WeComEvents events = new WeComEvents(WeComAdapter.PLATFORM, FakeWeCom.AGENT_ID);
        Fuzzer.of("wecom callback xml", CORPUS, 4_000).run(input -> {
            var read = events.read(WeComXml.fields(input.getBytes(StandardCharsets.UTF_8)), Instant.now());
            if (read.event() != null) {
                wellFormed(read.event());
            }
        }, t -> t instanceof IOException);
        List<String> encrypted = CORPUS.stream().map(x -> FakeWeCom.encrypt(x, FakeWeCom.CORP_ID, FakeWeCom.AES_KEY)).toList();
        Fuzzer.of("wecom callback ciphertext", encrypted, 2_000).run(input -> {
            byte[] plain = crypto.decrypt(input);
            var read = events.read(WeComXml.fields(plain), Instant.now());
            if (read.event() != null) {
                wellFormed(read.event());
            }
        }, t -> t instanceof WeComCrypto.Refused || t instanceof IOException);
    }

    @Test
    void theRoute_answersEncryptedGarbage200Or400_andUnsignedGarbage401_andStillAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("wecom callback wire", CORPUS, 80).run(body -> {
            assertThat(wecom.postRaw(FakeWeCom.envelope(FakeWeCom.encrypt(body, FakeWeCom.CORP_ID, FakeWeCom.AES_KEY)), "0".repeat(40), "1", "1")
                    .statusCode()).as("a wrong signature").isEqualTo(401);
            assertThat(wecom.post(body)).as("signed: read, skipped or refused as not XML").isIn(200, 400);
        }, t -> false);

        wecom.post(FakeWeCom.text(ZHANG, "7340005541298400009", "still there?"));
        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).stream().anyMatch(s -> "echo: still there?".equals(s.content())));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ZHANG));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).as("a message id to dedupe by").isNotBlank();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
    }
}
