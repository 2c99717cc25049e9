package dev.herald.platforms.wecom;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * WeCom's calls to Herald's callback URL: the URL check, signed and encrypted messages answered through message/send, and
 * everything that is not WeCom's (a wrong token, another company's CorpID, an old timestamp, a DOCTYPE with entities)
 * refused before anything is stored; a replayed MsgId is answered once.
 */
class WeComCallbackTest {
    static final String ZHANG = "ZhangSan";
    static final String STRANGER = "LiSi";

    final FakeWeCom wecom = new FakeWeCom();
    @RegisterExtension
    final GatewayFixture herald = wecom.herald(ZHANG).withPairing();

    @Test
    void theSignatureAndDecryption_matchWeComsPublishedSample() throws Exception {
        // the sample of WeCom's "加解密方案说明" (VerifyURL): token QDG6eK, CorpID wx5823bf96d3bd56c7
        String echo = "P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ==";
        assertThat(WeComCrypto.signature("QDG6eK", "1409659589", "263014780", echo)).isEqualTo("5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3");
        WeComCrypto sample = new WeComCrypto("QDG6eK", "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C", "wx5823bf96d3bd56c7");
        assertThat(sample.signed("5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3", "1409659589", "263014780", echo)).isTrue();
        assertThat(sample.signed("5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd4", "1409659589", "263014780", echo)).isFalse();
        assertThat(new String(sample.decrypt(echo), StandardCharsets.UTF_8)).isNotBlank();
        WeComCrypto other = new WeComCrypto("QDG6eK", "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C", "ww-another-corp");
        assertThatThrownBy(() -> other.decrypt(echo)).isInstanceOf(WeComCrypto.Refused.class).hasMessageContaining("another company");
    }

    @Test
    void theUrlCheck_answersTheDecryptedEchostr_andRefusesAWrongTokenOrCorpId() {
        herald.start();

        var good = wecom.verify("4862931542176348551", FakeWeCom.TOKEN, FakeWeCom.CORP_ID);
        var wrongToken = wecom.verify("4862931542176348551", "guessed", FakeWeCom.CORP_ID);
        var wrongCorp = wecom.verify("4862931542176348551", FakeWeCom.TOKEN, "ww0000000000000000");

        assertThat(good.statusCode()).isEqualTo(200);
        assertThat(good.body()).as("the plaintext, without quotes or a newline").isEqualTo("4862931542176348551");
        assertThat(wrongToken.statusCode()).isEqualTo(401);
        assertThat(wrongToken.body()).doesNotContain("4862931542176348551");
        assertThat(wrongCorp.statusCode()).isEqualTo(403);
        assertThat(wrongCorp.body()).doesNotContain("4862931542176348551");
    }

    @Test
    void aMessage_isAnsweredThroughMessageSend_asMarkdown_toTheMemberAndTheAgent() {
        herald.start();
        herald.agent.reply("**Done**: the _report_ is ready, see [it](https://example.com/r).");

        int status = wecom.post(FakeWeCom.text(ZHANG, "7340005541298000001", "write the report"));

        assertThat(status).isEqualTo(200);
        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);
        FakeWeCom.Sent reply = wecom.sentTo(ZHANG).getFirst();
        assertThat(reply.type()).isEqualTo("markdown");
        assertThat(reply.content()).isEqualTo("**Done**: the report is ready, see [it](https://example.com/r).");
        assertThat(reply.body().path("agentid").asLong()).isEqualTo(FakeWeCom.AGENT_ID);
        assertThat(herald.agent.calls()).singleElement().satisfies(c -> assertThat(c.userMessage()).isEqualTo("write the report"));
        assertThat(wecom.tokenCalls.get()).as("one token, cached").isEqualTo(1);
    }

    @Test
    void aWrongToken_anotherCorpId_anOldTimestamp_orNoSignature_areRefused_andNothingIsStored() {
        herald.start();
        String msg = FakeWeCom.text(ZHANG, "7340005541298000002", "forged");

        assertThat(wecom.post(msg, FakeWeCom.CORP_ID, "guessed-token", Instant.now())).as("wrong token").isEqualTo(401);
        assertThat(wecom.post(msg, "ww0000000000000000", FakeWeCom.TOKEN, Instant.now())).as("another company").isEqualTo(403);
        assertThat(wecom.post(msg, FakeWeCom.CORP_ID, FakeWeCom.TOKEN, Instant.now().minus(Duration.ofMinutes(6)))).as("expired").isEqualTo(401);
        assertThat(wecom.post(msg, FakeWeCom.CORP_ID, FakeWeCom.TOKEN, Instant.now().plus(Duration.ofMinutes(6)))).as("future").isEqualTo(401);
        String enc = FakeWeCom.encrypt(msg, FakeWeCom.CORP_ID, FakeWeCom.AES_KEY);
        assertThat(wecom.postRaw(FakeWeCom.envelope(enc), "", "1", "1").statusCode()).as("no signature").isEqualTo(401);
        String ts = Long.toString(Instant.now().getEpochSecond());
        String otherEnc = FakeWeCom.encrypt(FakeWeCom.text(ZHANG, "7340005541298000009", "swapped"), FakeWeCom.CORP_ID, FakeWeCom.AES_KEY);
        assertThat(wecom.postRaw(FakeWeCom.envelope(otherEnc), FakeWeCom.sign(FakeWeCom.TOKEN, ts, "5", enc), ts, "5").statusCode())
                .as("a signature of another body").isEqualTo(401);

        assertThat(herald.turns()).isEmpty();
        assertThat(wecom.post(FakeWeCom.text(ZHANG, "7340005541298000003", "genuine"))).isEqualTo(200);
        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);
        assertThat(herald.turns()).singleElement().satisfies(t -> assertThat(t.text()).isEqualTo("genuine"));
    }

    @Test
    void aReplayedMsgId_isAnsweredOnce() {
        herald.start();
        String msg = FakeWeCom.text(ZHANG, "7340005541298000004", "only once");

        assertThat(wecom.post(msg)).isEqualTo(200);
        assertThat(wecom.post(msg)).as("WeCom's retry, freshly signed").isEqualTo(200);
        assertThat(wecom.post(msg)).isEqualTo(200);

        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void xxe_inTheEnvelopeOrInTheSignedMessage_isRefused_neverExpandedNorFetched() {
        herald.start();
        String entity = "<!DOCTYPE xml [<!ENTITY xxe SYSTEM \"" + wecom.baseUrl() + "/xxe/passwd\">]>";
        String enc = FakeWeCom.encrypt(FakeWeCom.text(ZHANG, "7340005541298000005", "hi"), FakeWeCom.CORP_ID, FakeWeCom.AES_KEY);
        String ts = Long.toString(Instant.now().getEpochSecond());
        String outer = "<?xml version=\"1.0\"?>" + entity + "<xml><Encrypt><![CDATA[" + enc + "]]></Encrypt><X>&xxe;</X></xml>";
        assertThat(wecom.postRaw(outer, FakeWeCom.sign(FakeWeCom.TOKEN, ts, "7", enc), ts, "7").statusCode()).isEqualTo(400);

        String inner = "<?xml version=\"1.0\"?>" + entity + "<xml><ToUserName>" + FakeWeCom.CORP_ID + "</ToUserName><FromUserName>" + ZHANG
                + "</FromUserName><CreateTime>1</CreateTime><MsgType>text</MsgType><Content>&xxe;</Content><MsgId>7340005541298000006</MsgId>"
                + "<AgentID>" + FakeWeCom.AGENT_ID + "</AgentID></xml>";
        assertThat(wecom.post(inner)).as("signed and encrypted, but with a DOCTYPE").isEqualTo(400);
        String laughs = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;\">]>"
                + "<xml><Content>&lol2;</Content></xml>";
        assertThat(wecom.post(laughs)).isEqualTo(400);

        assertThat(wecom.xxeFetches.get()).as("the external entity was never fetched").isZero();
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
        assertThatThrownBy(() -> WeComXml.fields(laughs.getBytes(StandardCharsets.UTF_8))).isInstanceOf(IOException.class);
    }

    @Test
    void events_andUnknownTypes_startNoTurn_andAStrangerGetsAPairingCode() {
        herald.start();
        String enter = "<xml><ToUserName><![CDATA[" + FakeWeCom.CORP_ID + "]]></ToUserName><FromUserName><![CDATA[" + ZHANG + "]]></FromUserName>"
                + "<CreateTime>1408091189</CreateTime><MsgType><![CDATA[event]]></MsgType><Event><![CDATA[enter_agent]]></Event>"
                + "<EventKey><![CDATA[]]></EventKey><AgentID>" + FakeWeCom.AGENT_ID + "</AgentID></xml>";
        assertThat(wecom.post(enter)).isEqualTo(200);
        assertThat(wecom.post(FakeWeCom.text(ZHANG, "7340005541298000007", "x").replace("[text]", "[mpnews]"))).isEqualTo(200);
        assertThat(wecom.post("<xml><FromUserName>" + ZHANG + "</FromUserName></xml>")).isEqualTo(200);

        wecom.post(FakeWeCom.text(STRANGER, "7340005541298000008", "let me in"));
        await().atMost(WAIT).until(() -> wecom.sentTo(STRANGER).size() == 1);
        assertThat(wecom.sentTo(STRANGER).getFirst().content()).contains("herald pairing approve wecom");
        assertThat(herald.turns()).isEmpty();
    }
}
