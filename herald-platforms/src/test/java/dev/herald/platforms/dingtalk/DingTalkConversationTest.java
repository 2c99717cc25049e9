package dev.herald.platforms.dingtalk;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatType;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Conversations as a DingTalk user sees them: answers through the message's session webhook while it is valid, through
 * the robot send API (1:1 by staff id, groups by openConversationId) once it has expired or DingTalk refuses it; groups
 * answered only when the robot is @-mentioned; the access token fetched once and again after DingTalk revoked it; a
 * redelivered msgId answered once; a stranger's message acknowledged and not answered.
 */
class DingTalkConversationTest {
    final FakeDingTalk dingtalk = new FakeDingTalk();
    @RegisterExtension
    final GatewayFixture herald = dingtalk.herald("staff1", "staff2");

    private static Instant valid() {
        return Instant.now().plusSeconds(3600);
    }

    private static Instant expired() {
        return Instant.now().minusSeconds(1);
    }

    @Test
    void aDirectMessage_isAnsweredThroughItsSessionWebhook_asMarkdown_withoutAnAccessToken() {
        herald.start();

        String frame = dingtalk.deliver(dingtalk.dm("m1", "staff1", "hello", valid()));

        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.sent.getFirst()).isEqualTo(new FakeDingTalk.Sent("webhook", "S-m1", "markdown", "echo: hello", "echo: hello"));
        assertThat(dingtalk.ackOf(frame)).isNotNull();
        assertThat(dingtalk.tokensIssued).hasValue(0);
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.source().chatType()).isEqualTo(ChatType.DM);
            assertThat(t.source().chatId()).isEqualTo("staff1");
            assertThat(t.source().userName()).isEqualTo("Nick staff1");
        });
    }

    @Test
    void afterTheWebhookExpired_theAnswerGoesThroughTheRobotSendApi_toTheUser() {
        herald.start();

        dingtalk.deliver(dingtalk.dm("m2", "staff1", "late question", expired()));

        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.sent.getFirst()).isEqualTo(new FakeDingTalk.Sent("dm", "staff1", "sampleMarkdown", "echo: late question",
                "echo: late question"));
    }

    @Test
    void aWebhookDingTalkRefuses_fallsBackToTheSendApi() {
        herald.start();
        dingtalk.expiredSessions.add("S-m3");

        dingtalk.deliver(dingtalk.dm("m3", "staff1", "refused hook", valid()));

        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.sent.getFirst().via()).isEqualTo("dm");
        assertThat(dingtalk.sent.getFirst().text()).isEqualTo("echo: refused hook");
    }

    @Test
    void inAGroup_onlyMessagesThatMentionTheRobot_areAnswered_throughTheGroupApiOnceTheWebhookExpired() {
        herald.start();

        String quiet = dingtalk.deliver(dingtalk.group("g1", "cidGroup1", "staff1", "just chatting", false, valid()));
        dingtalk.deliver(dingtalk.group("g2", "cidGroup1", "staff2", " what is up?", true, expired()));

        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.sent.getFirst()).isEqualTo(new FakeDingTalk.Sent("group", "cidGroup1", "sampleMarkdown", "echo: what is up?",
                "echo: what is up?"));
        assertThat(dingtalk.ackOf(quiet)).as("an ignored message is acknowledged too").isNotNull();
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.source().chatType()).isEqualTo(ChatType.GROUP);
            assertThat(t.source().userId()).isEqualTo("staff2");
        });
    }

    @Test
    void theAccessToken_isFetchedOnce_andAgainWhenDingTalkRevokedIt() {
        herald.start();

        dingtalk.deliver(dingtalk.dm("t1", "staff1", "one", expired()));
        dingtalk.deliver(dingtalk.dm("t2", "staff1", "two", expired()));
        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 2);
        assertThat(dingtalk.tokensIssued).hasValue(1);

        dingtalk.revokeTokens();
        dingtalk.deliver(dingtalk.dm("t3", "staff1", "three", expired()));

        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 3);
        assertThat(dingtalk.sent).extracting(FakeDingTalk.Sent::text).containsExactly("echo: one", "echo: two", "echo: three");
        assertThat(dingtalk.tokensIssued).hasValue(2);
        assertThat(dingtalk.apiSendAttempts).as("the refused send was tried once more with the new token").hasValue(4);
    }

    @Test
    void aRedeliveredMessage_isAcknowledgedAgain_butAnsweredOnce() {
        herald.start();
        var message = dingtalk.dm("m-dup", "staff1", "only once", valid());

        String first = dingtalk.deliver(message);
        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        String again = dingtalk.deliver(message);

        await().atMost(WAIT).until(() -> dingtalk.ackOf(again) != null);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.ackOf(first)).isNotNull();
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void aStrangersMessage_isAcknowledged_andStartsNoTurn() {
        herald.start();

        String frame = dingtalk.deliver(dingtalk.dm("m-x", "stranger", "let me in", valid()));

        await().atMost(WAIT).until(() -> dingtalk.ackOf(frame) != null);
        await().during(Duration.ofMillis(200)).atMost(WAIT).until(() -> dingtalk.sent.stream().noneMatch(s -> s.text().contains("let me in")));
        assertThat(herald.turns()).isEmpty();
    }
}
