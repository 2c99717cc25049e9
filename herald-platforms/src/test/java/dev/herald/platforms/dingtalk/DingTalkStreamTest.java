package dev.herald.platforms.dingtalk;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Stream connection: opened with the app's credentials and the robot topic, the ticket used once; every frame
 * acknowledged with its own messageId; pings answered with their data; a disconnect answered by a new connection on a
 * new ticket; refused credentials stop the start naming the keys, never the secret.
 */
class DingTalkStreamTest {
    final FakeDingTalk dingtalk = new FakeDingTalk();
    @RegisterExtension
    final GatewayFixture herald = dingtalk.herald("staff1");

    @Test
    void theConnection_isOpenedWithTheCredentialsAndTheRobotTopic_andItsTicketUsedOnce() {
        herald.start();

        assertThat(dingtalk.openRequests).singleElement().satisfies(r -> {
            assertThat(r.path("clientId").asText()).isEqualTo(FakeDingTalk.CLIENT_ID);
            assertThat(r.path("subscriptions")).anySatisfy(s -> {
                assertThat(s.path("type").asText()).isEqualTo("CALLBACK");
                assertThat(s.path("topic").asText()).isEqualTo("/v1.0/im/bot/messages/get");
            });
        });
        assertThat(dingtalk.tickets).hasSize(1);
        assertThat(dingtalk.openConnections()).isEqualTo(1);
        assertThat(herald.gateway.status().platforms().get(DingTalkAdapter.PLATFORM).state()).isEqualTo(ConnectionState.CONNECTED);
    }

    @Test
    void aPing_isAnsweredWith200_itsMessageId_andItsOwnData() throws Exception {
        herald.start();

        String id = dingtalk.ping("opaque-42");

        await().atMost(WAIT).until(() -> dingtalk.ackOf(id) != null);
        JsonNode ack = dingtalk.ackOf(id);
        assertThat(ack.path("code").asInt()).isEqualTo(200);
        assertThat(ack.path("message").asText()).isEqualTo("OK");
        assertThat(ack.path("headers").path("contentType").asText()).isEqualTo("application/json");
        assertThat(FakeDingTalk.JSON.readTree(ack.path("data").asText()).path("opaque").asText()).isEqualTo("opaque-42");
    }

    @Test
    void everyFrame_isAcknowledged_eventsOtherCallbacksIgnoredMessagesAndAnsweredOnes() {
        herald.start();

        String event = dingtalk.frame("EVENT", "chat_update_title", "{\"eventId\":\"e1\"}");
        String otherCallback = dingtalk.frame("CALLBACK", "/v1.0/card/instances/callback", "{}");
        String notForUs = dingtalk.deliver(dingtalk.group("m-ignored", "cidGroup1", "staff1", "talking among us", false,
                Instant.now().plusSeconds(3600)));
        String answered = dingtalk.deliver(dingtalk.dm("m-dm", "staff1", "hello", Instant.now().plusSeconds(3600)));

        await().atMost(WAIT).until(() -> dingtalk.ackOf(answered) != null);
        for (String id : new String[] {event, otherCallback, notForUs, answered}) {
            await().atMost(WAIT).until(() -> dingtalk.ackOf(id) != null);
            assertThat(dingtalk.ackOf(id).path("code").asInt()).as("ack of %s", id).isEqualTo(200);
        }
        assertThat(dingtalk.ackOf(event).path("data").asText()).contains("SUCCESS");
        assertThat(herald.turns()).extracting(t -> t.text()).containsExactly("hello");
    }

    @Test
    void aDisconnect_isAcknowledged_andAnsweredByANewConnectionOnANewTicket() {
        herald.start();

        String id = dingtalk.disconnect();

        await().atMost(WAIT).until(() -> dingtalk.ackOf(id) != null);
        await().atMost(WAIT).until(() -> dingtalk.tickets.size() == 2 && dingtalk.openConnections() == 1 && dingtalk.connected());
        dingtalk.deliver(dingtalk.dm("m-after", "staff1", "on the new connection", Instant.now().plusSeconds(3600)));
        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
        assertThat(dingtalk.sent.getFirst().text()).isEqualTo("echo: on the new connection");
    }

    @Test
    void aDroppedConnection_isReopenedWithANewTicket() {
        herald.start();

        dingtalk.dropCurrent();

        await().atMost(WAIT).until(() -> dingtalk.tickets.size() == 2 && dingtalk.connected());
        dingtalk.deliver(dingtalk.dm("m-back", "staff1", "back again", Instant.now().plusSeconds(3600)));
        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 1);
    }

    @Test
    void refusedCredentials_failTheStartNamingTheKeys_andNeverTheSecret() {
        String wrong = "wrong-secret-abcdef";
        DingTalkAdapter adapter = new DingTalkAdapter(dingtalk.settings().withClientSecret(wrong), FakeDingTalk.timing(), herald.clock);
        RecordingSink sink = new RecordingSink();

        assertThatThrownBy(() -> adapter.start(sink))
                .hasMessageContaining("check platforms.dingtalk.client_id and client_secret")
                .message().doesNotContain(wrong);
        assertThat(sink.states).last().isEqualTo(ConnectionState.STOPPED);
        assertThat(dingtalk.tickets).isEmpty();
    }
}
