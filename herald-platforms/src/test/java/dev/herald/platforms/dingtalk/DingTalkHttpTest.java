package dev.herald.platforms.dingtalk;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * HTTP mode end to end: DingTalk's signed robot callback reaches Herald on the API server's listener, is answered through
 * the session webhook (and through the send API once it expired), a forged or stale request is refused before anything
 * is stored, and a message posted twice is answered once.
 */
class DingTalkHttpTest {
    final FakeDingTalk dingtalk = new FakeDingTalk();
    @RegisterExtension
    final GatewayFixture herald = dingtalk.heraldOverHttp("staff1");

    @Test
    void aSignedMessage_isAnsweredThroughItsSessionWebhook_andAfterItExpiredThroughTheSendApi() {
        herald.start();
        assertThat(dingtalk.post(dingtalk.dm("m-http-1", "staff1", "hello", Instant.now().plusSeconds(3600)))).isEqualTo(200);

        await().atMost(WAIT).until(() -> dingtalk.sentTo("S-m-http-1").size() == 1);
        assertThat(dingtalk.sentTo("S-m-http-1").getFirst().text()).isEqualTo("echo: hello");

        dingtalk.expiredSessions.add("S-m-http-2");
        assertThat(dingtalk.post(dingtalk.dm("m-http-2", "staff1", "again", Instant.now().plusSeconds(3600)))).isEqualTo(200);
        await().atMost(WAIT).until(() -> dingtalk.sentTo("staff1").size() == 1);
        assertThat(dingtalk.sentTo("staff1").getFirst()).satisfies(s -> {
            assertThat(s.via()).isEqualTo("dm");
            assertThat(s.text()).isEqualTo("echo: again");
        });
        assertThat(dingtalk.openRequests).as("no Stream connection in http mode").isEmpty();
    }

    @Test
    void aForgedMissingOrStaleSignature_isRefusedBeforeAnythingIsStored() {
        herald.start();
        String body = dingtalk.dm("m-forged", "staff1", "let me in", Instant.now().plusSeconds(3600)).toString();
        long now = System.currentTimeMillis();
        long stale = now - Duration.ofMinutes(61).toMillis();

        assertThat(dingtalk.post(body, Map.of("timestamp", Long.toString(now), "sign", FakeDingTalk.sign(now, "not-the-secret"))))
                .as("signed with another secret").isEqualTo(401);
        assertThat(dingtalk.post(body, Map.of())).as("unsigned").isEqualTo(401);
        assertThat(dingtalk.post(body, Map.of("timestamp", Long.toString(now + 1), "sign", FakeDingTalk.sign(now, FakeDingTalk.CLIENT_SECRET))))
                .as("a sign for another timestamp").isEqualTo(401);
        assertThat(dingtalk.post(body, Map.of("timestamp", Long.toString(stale), "sign", FakeDingTalk.sign(stale, FakeDingTalk.CLIENT_SECRET))))
                .as("correctly signed 61 minutes ago").isEqualTo(403);
        assertThat(dingtalk.post("not json", Map.of("timestamp", Long.toString(now), "sign", FakeDingTalk.sign(now, FakeDingTalk.CLIENT_SECRET))))
                .as("signed, but not a message").isEqualTo(400);

        assertThat(herald.turns()).isEmpty();
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> dingtalk.sent.isEmpty());
    }

    @Test
    void theSameMsgIdPostedTwice_isAnsweredOnce_andAMessageTheStoreCannotTakeIs503() {
        herald.start();
        var message = dingtalk.dm("m-twice", "staff1", "question", Instant.now().plusSeconds(3600));
        herald.fillDisk();
        assertThat(dingtalk.post(message)).as("not stored: DingTalk may send it again").isEqualTo(503);
        herald.freeDisk();

        assertThat(dingtalk.post(message)).isEqualTo(200);
        assertThat(dingtalk.post(message)).as("a duplicate is still acknowledged").isEqualTo(200);

        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.sent.getFirst().text()).isEqualTo("echo: question");
        assertThat(herald.turns()).hasSize(1);
    }
}
