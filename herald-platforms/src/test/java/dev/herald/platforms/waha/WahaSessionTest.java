package dev.herald.platforms.waha;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The WAHA session's status where Herald shows platform state (the gateway's connections, read by the admin page and
 * {@code herald status}): WORKING is connected; a session waiting for its QR code, failed or stopped is backing off with
 * the status and what to do, its replies wait (retryable, no call to WAHA) and go out once when it works again; a
 * refused API key stops the start naming the key, never showing it.
 */
class WahaSessionTest {
    static final String ALICE = WahaWebhookTest.ALICE;
    static final String CHAT = ALICE + "@c.us";

    final FakeWaha waha = new FakeWaha();
    @RegisterExtension
    final GatewayFixture herald = waha.herald(ALICE);

    private PlatformRegistry.Connection connection() {
        return herald.gateway.status().platforms().get(WahaAdapter.PLATFORM);
    }

    @Test
    void aSessionThatStopsWorking_isShown_itsReplyWaits_andGoesOutOnceWhenItWorksAgain() {
        herald.start();
        assertThat(connection().state()).isEqualTo(ConnectionState.CONNECTED);
        assertThat(connection().detail()).contains("WORKING").contains(FakeWaha.ME);
        var hold = herald.agent.hold("the answer, after the phone came back");
        waha.post(FakeWaha.message(FakeWaha.dm(ALICE, "3EB0SSS1", "are you there?")));
        hold.awaitArrival(WAIT);

        waha.status = "SCAN_QR_CODE";
        await().atMost(WAIT).until(() -> connection().state() == ConnectionState.BACKING_OFF);
        assertThat(connection().detail()).contains("SCAN_QR_CODE").contains("scan the QR code");
        hold.release();
        await().atMost(WAIT).until(() -> herald.turns().getFirst().state() == TurnState.AWAITING_DELIVERY);
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> waha.sentTo(CHAT).isEmpty());

        waha.status = "WORKING";
        await().atMost(WAIT).until(() -> connection().state() == ConnectionState.CONNECTED);
        await().atMost(WAIT).until(() -> herald.turns().getFirst().state() == TurnState.DELIVERED);
        await().during(Duration.ofMillis(400)).atMost(WAIT).until(() -> waha.sentTo(CHAT).size() == 1);
        assertThat(waha.sentTo(CHAT).getFirst().text()).isEqualTo("the answer, after the phone came back");
        assertThat(herald.agent.calls()).hasSize(1);
    }

    @Test
    void aFailedSessionAtStart_isShown_andASendFailsAsRetryable_withoutCallingWaha() {
        waha.status = "FAILED";
        herald.start();

        assertThat(connection().state()).isEqualTo(ConnectionState.BACKING_OFF);
        assertThat(connection().detail()).contains("FAILED").contains("restart it in WAHA");
        var result = herald.current.send(new OutboundMessage(ChatTarget.of(CHAT), "hello", dev.herald.core.platform.MessageKind.NOTICE, null, null, 1, 1));
        assertThat(result.success()).isFalse();
        assertThat(result.retryable()).isTrue();
        assertThat(result.error()).contains("FAILED");
        assertThat(waha.calls).isEmpty();

        waha.status = "STOPPED";
        await().atMost(WAIT).until(() -> connection().detail().contains("STOPPED"));
        assertThat(connection().state()).isEqualTo(ConnectionState.BACKING_OFF);
    }

    @Test
    void aSessionStatusEvent_isShownAtOnce_withoutWaitingForThePoll() {
        waha.statusInterval = Duration.ofHours(1);
        herald.start();
        int polls = waha.sessionPolls.get();

        assertThat(waha.post(FakeWaha.event("session.status", dev.herald.platforms.LocalJsonServer.JSON.createObjectNode().put("status", "FAILED"),
                java.time.Instant.now()))).isEqualTo(200);
        assertThat(connection().state()).isEqualTo(ConnectionState.BACKING_OFF);
        assertThat(connection().detail()).contains("FAILED");
        assertThat(waha.post(FakeWaha.event("session.status", dev.herald.platforms.LocalJsonServer.JSON.createObjectNode().put("status", "WORKING"),
                java.time.Instant.now()))).isEqualTo(200);
        assertThat(connection().state()).isEqualTo(ConnectionState.CONNECTED);
        assertThat(waha.sessionPolls.get()).as("no poll in between").isEqualTo(polls);
    }

    @Test
    void aRefusedApiKey_stopsTheStart_namingTheKey_butNotItsValue() {
        var settings = WahaSettings.of(waha.url(), FakeWaha.SESSION, "a-wrong-api-key-1234", FakeWaha.HMAC_KEY);
        var sink = new RecordingSink();
        try (var adapter = new WahaAdapter(settings, FakeWaha.timing(), Clock.systemUTC())) {
            assertThatThrownBy(() -> adapter.start(sink)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("platforms.waha.api_key").hasMessageNotContaining("a-wrong-api-key-1234");
        }
        assertThat(sink.states).last().isEqualTo(ConnectionState.STOPPED);
        assertThat(String.join(" ", sink.details)).doesNotContain("a-wrong-api-key-1234");
    }

    @Test
    void anUnreachableWaha_orAMissingSession_isShown_andTheStartGoesOn() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        var sink = new RecordingSink();
        try (var adapter = new WahaAdapter(WahaSettings.of("http://127.0.0.1:" + closed, FakeWaha.SESSION, FakeWaha.API_KEY, FakeWaha.HMAC_KEY),
                FakeWaha.timing(), Clock.systemUTC())) {
            adapter.start(sink);
            assertThat(sink.states).last().isEqualTo(ConnectionState.BACKING_OFF);
            assertThat(sink.details.getLast()).contains("UNREACHABLE").contains("does not answer");
        }
        var missing = new RecordingSink();
        try (var adapter = new WahaAdapter(WahaSettings.of(waha.url(), "work", FakeWaha.API_KEY, FakeWaha.HMAC_KEY), FakeWaha.timing(),
                Clock.systemUTC())) {
            adapter.start(missing);
            assertThat(missing.details.getLast()).contains("NO_SESSION").contains("platforms.waha.session");
        }
    }
}
