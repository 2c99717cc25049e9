package dev.herald.platforms.qqbot;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The QQ gateway lifecycle: identify and heartbeats, resume after a drop, invalid session, the access token's cache and refresh. */
class QqBotConnectionTest {
    static final FakeQqGateway qq = new FakeQqGateway();
    @RegisterExtension
    final GatewayFixture herald = FakeQqGateway.herald(qq, "alice");

    @org.junit.jupiter.api.BeforeEach
    void resetFake() {
        qq.reset();
    }

    @org.junit.jupiter.api.AfterAll
    static void stopFake() {
        qq.close();
    }

    @Test
    void identify_carriesTheQQBotToken_theIntents_andOneShard_andHeartbeatsCarryTheLastSequence() {
        qq.heartbeatInterval = 100;
        herald.start();

        assertThat(qq.sent(2)).singleElement().satisfies(id -> {
            assertThat(id.path("d").path("token").asText()).isEqualTo("QQBot " + qq.tokensIssued.getFirst());
            assertThat(id.path("d").path("intents").asInt() & (1 << 25)).as("GROUP_AND_C2C_EVENT").isNotZero();
            assertThat(id.path("d").path("shard").toString()).isEqualTo("[0,1]");
        });
        await().atMost(WAIT).until(() -> qq.sent(1).size() >= 2 && qq.sent(1).getLast().path("d").asLong(-1) == qq.lastSeq());
        assertThat(qq.sent(1)).allSatisfy(beat -> assertThat(beat.path("d").isNull() || beat.path("d").isIntegralNumber()).isTrue());
        assertThat(herald.gateway.status().platforms().get(QqBotAdapter.PLATFORM).state()).isEqualTo(ConnectionState.CONNECTED);
    }

    @Test
    void aDroppedSocket_isResumedWithTheSameSessionAndLastSequence_andTheMissedMessageIsAnswered() {
        herald.start();
        long lastSeen = qq.lastSeq();
        qq.lostInFlight("C2C_MESSAGE_CREATE", FakeQqGateway.c2cJson("m-100", "alice", "sent while the line was down", java.time.Duration.ZERO));

        qq.drop();

        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 1);
        assertThat(qq.sent(6)).singleElement().satisfies(resume -> {
            assertThat(resume.path("d").path("session_id").asText()).isEqualTo("qq-session-1");
            assertThat(resume.path("d").path("seq").asLong()).isEqualTo(lastSeen);
            assertThat(resume.path("d").path("token").asText()).startsWith("QQBot tok-");
        });
        assertThat(qq.sent(2)).as("no second IDENTIFY").hasSize(1);
        assertThat(qq.postsTo("user:alice").getFirst().msgId()).isEqualTo("m-100");
        assertThat(herald.agent.messages()).containsExactly("sent while the line was down");
    }

    @Test
    void anInvalidSession_isReplacedByAFreshIdentify() {
        herald.start();
        qq.invalidateNextResume = true;

        qq.drop();

        await().atMost(WAIT).until(() -> qq.sent(2).size() == 2 && qq.connected());
        assertThat(qq.sent(6)).as("it tried to resume first").hasSize(1);
        qq.c2c("m-200", "alice", "new session");
        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 1);
    }

    @Test
    void theAccessToken_isCachedAcrossCalls_andFetchedAnewWhenTheApiRefusesIt() {
        herald.start();
        qq.c2c("m-300", "alice", "one");
        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 1);
        assertThat(qq.tokensIssued).as("gateway, identify and the reply share one token").hasSize(1);

        qq.expireTokens();
        qq.c2c("m-301", "alice", "two");

        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 2);
        assertThat(qq.tokensIssued).hasSize(2);
        assertThat(qq.postsTo("user:alice").get(1).authorization()).isEqualTo("QQBot " + qq.tokensIssued.get(1));
    }

    @Test
    void aTokenCloseToExpiry_isRenewedBeforeItIsUsed() {
        qq.expiresIn = "30"; // within the 60 s margin: every use renews it
        herald.start();
        int before = qq.tokensIssued.size();
        qq.c2c("m-400", "alice", "hello");

        await().atMost(WAIT).until(() -> qq.postsTo("user:alice").size() == 1);
        assertThat(qq.tokensIssued.size()).isGreaterThan(before);
        assertThat(qq.postsTo("user:alice").getFirst().authorization()).isEqualTo("QQBot " + qq.tokensIssued.getLast());
    }

    @Test
    void aWrongSecret_failsStartNamingTheKeys_andNeverTheSecret() {
        String wrong = "not-the-secret-Xy7";
        QqBotAdapter adapter = new QqBotAdapter(qq.settings(wrong), FakeQqGateway.timing(), herald.storage.platformState(), Clock.systemUTC());
        RecordingSink sink = new RecordingSink();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> adapter.start(sink))
                .hasMessageContaining("platforms.qqbot.client_secret").hasMessageNotContaining(wrong);
        assertThat(sink.states).last().isEqualTo(ConnectionState.STOPPED);
        assertThat(sink.details).noneMatch(d -> d.contains(wrong));
        adapter.close();
    }
}
