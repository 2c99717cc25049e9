package dev.herald.platforms.qqbot;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * QQ gateway frames from a hostile or broken server: the dispatch parser never throws and makes only well-formed events,
 * and the running adapter survives a stream of malformed frames and still answers the next good message.
 */
@Tag("fuzz")
class QqBotFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> CORPUS = List.of(
            """
            {"op":0,"id":"C2C_MESSAGE_CREATE:abc","t":"C2C_MESSAGE_CREATE","s":5,"d":{"id":"ROBOT1.0_a.b!","content":"hi there",
             "timestamp":"2025-02-15T16:32:42+08:00","author":{"id":"alice","user_openid":"alice","union_openid":"u-alice"},
             "attachments":[{"url":"multimedia.nt.qq.com.cn/download?fileid=x","filename":"a.jpg","content_type":"image/jpeg","size":53851}]}}""",
            """
            {"op":0,"t":"GROUP_AT_MESSAGE_CREATE","s":6,"d":{"id":"ROBOT1.0_g","content":" what is 2+2?","timestamp":"2025-02-15T16:33:00+08:00",
             "group_id":"G1","group_openid":"G1","author":{"id":"bob","member_openid":"bob","union_openid":"u-bob"}}}""",
            """
            {"op":0,"t":"READY","s":1,"d":{"version":1,"session_id":"qq-session-1","user":{"id":"bot-1","username":"herald-bot","bot":true},"shard":[0,1]}}""",
            """
            {"op":0,"t":"RESUMED","s":3,"d":""}""",
            """
            {"op":11}""",
            """
            {"op":1,"d":null}""");

    static final FakeQqGateway qq = new FakeQqGateway();
    @RegisterExtension
    final GatewayFixture herald = FakeQqGateway.herald(qq, "alice", "bob");

    @org.junit.jupiter.api.BeforeEach
    void resetFake() {
        qq.reset();
    }

    @org.junit.jupiter.api.AfterAll
    static void stopFake() {
        qq.close();
    }

    @Test
    void theDispatchParser_neverThrows_andEveryEventItMakesIsWellFormed() {
        QqBotMessages messages = new QqBotMessages(Clock.systemUTC());
        Fuzzer.of("qqbot dispatch", CORPUS, 600).run(input -> {
            JsonNode frame = JSON.readTree(input);
            if (frame == null) {
                return;
            }
            messages.normalise(frame.path("t").asText(""), frame.path("d")).ifPresent(QqBotFuzzTest::wellFormed);
        }, t -> t instanceof JacksonException);
    }

    @Test
    void theAdapter_survivesMalformedFrames_andAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("qqbot wire", CORPUS, 200).run(qq::raw, t -> false);

        // the stream can leave a reconnect in flight or a session id this server never issued: end the session, and the
        // good message goes on the next connection
        int identifies = qq.sent(2).size();
        qq.drop();
        await().atMost(WAIT).until(() -> qq.connected() && (qq.sent(2).size() > identifies || !qq.sent(6).isEmpty()));
        await().atMost(WAIT).until(() -> qq.received.stream().anyMatch(p -> p.path("op").asInt() == 6 || p.path("op").asInt() == 2)
                && qq.connected());
        qq.c2c("good-1", "alice", "still there?");

        await().atMost(WAIT.multipliedBy(2)).until(() -> qq.postsTo("user:alice").stream().anyMatch(p -> p.content().equals("echo: still there?")));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isIn("alice", "bob"));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(e.source().chatId()).matches("(user|group):.+");
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.messageId()).isNotBlank();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        assertThat(e.receivedAt()).isNotNull();
    }
}
