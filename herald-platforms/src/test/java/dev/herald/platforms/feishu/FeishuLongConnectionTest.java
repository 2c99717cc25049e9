package dev.herald.platforms.feishu;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Websocket mode end to end: Herald asks the fake's {@code /callback/ws/endpoint} for the long connection, reads pbbp2
 * data frames (whole or split), answers each with {@code {"code":200}} and its headers, pings with the service id,
 * reconnects after the platform drops it, drops a malformed frame without losing the next one, and answers an event
 * delivered again (after a store outage or a crash) once.
 */
class FeishuLongConnectionTest {
    static final String ALICE = FeishuCallbackTest.ALICE;
    static final String DM = FeishuCallbackTest.DM;

    final FakeFeishu feishu = new FakeFeishu();
    final FakeFeishuLongConnection platform = feishu.longConnection();
    @RegisterExtension
    final GatewayFixture herald = feishu.heraldOverLongConnection(ALICE);

    private static String hello(String n, String text) {
        return FakeFeishu.text("ev-ws-" + n, "om_ws000000000000000000000000000" + n, DM, "p2p", ALICE, text);
    }

    @Test
    void anEventOverTheLongConnection_isAnsweredInTheChat_andItsFrameIsAnswered200WithItsHeaders() {
        herald.start();
        String id = platform.event(hello("01", "hello"));

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("echo: hello");
        await().atMost(WAIT).until(() -> platform.codeOf(id) == 200);
        FeishuFrame answer = platform.answerTo(id);
        assertThat(answer.header("trace_id")).isEqualTo("trace-" + id);
        assertThat(answer.header("biz_rt")).matches("[0-9]+");
        assertThat(answer.service()).isEqualTo(FakeFeishuLongConnection.SERVICE);
        assertThat(answer.logIdNew()).isEqualTo("log-" + id);
        assertThat(platform.endpointCalls.get()).isEqualTo(1);
    }

    @Test
    void anEventSplitIntoThreeParts_isJoined_andAnsweredOnce() {
        herald.start();
        String id = platform.split(hello("02", "a question long enough to be split into three parts"), 3);

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("echo: a question long enough to be split into three parts");
        await().atMost(WAIT).until(() -> platform.codeOf(id) == 200);
        assertThat(platform.received.stream().filter(f -> f.header("message_id").equals(id))).as("one answer for the whole event").hasSize(1);
    }

    @Test
    void pingsGoOutEachPingInterval_withTheServiceId_andThePongsKeepTheConnectionOpen() {
        herald.start();
        await().atMost(WAIT).until(() -> platform.pings().size() >= 3);

        FeishuFrame ping = platform.pings().getFirst();
        assertThat(ping.method()).isEqualTo(FeishuFrame.CONTROL);
        assertThat(ping.service()).isEqualTo(FakeFeishuLongConnection.SERVICE);
        assertThat(ping.header("type")).isEqualTo("ping");
        assertThat(platform.connections.get()).as("the pongs count as heard: no reconnection").isEqualTo(1);
    }

    @Test
    void whenThePlatformDropsTheConnection_HeraldReconnects_andReadsTheNextEvent() {
        herald.start();
        platform.drop();
        await().atMost(WAIT).until(() -> platform.connections.get() == 2 && platform.connected());

        String id = platform.event(hello("03", "after the drop"));
        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("echo: after the drop");
        assertThat(platform.codeOf(id)).isEqualTo(200);
        assertThat(platform.endpointCalls.get()).as("a new endpoint for each connection").isEqualTo(2);
    }

    @Test
    void aMalformedFrame_isDropped_anEventThatIsNotJson_isAnswered400_andTheNextEventIsStillAnswered() {
        herald.start();
        platform.raw(new byte[] {0x0a, (byte) 0xff, (byte) 0xff}); // field 1 (SeqID) with the wrong wire type and a cut-off length
        platform.raw(FakeFeishuLongConnection.data("msg_bad", 1, 0, "not json {".getBytes(StandardCharsets.UTF_8)));
        String id = platform.event(hello("04", "still here"));

        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("echo: still here");
        assertThat(platform.codeOf("msg_bad")).isEqualTo(400);
        assertThat(platform.codeOf(id)).isEqualTo(200);
        assertThat(herald.turns()).hasSize(1);
        assertThat(platform.connections.get()).as("the connection went on").isEqualTo(1);
    }

    @Test
    void whileTheStoreCannotWrite_theEventIsAnswered500_andItsRedeliveryIsAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        String event = hello("05", "question");
        String first = platform.event(event);
        await().atMost(WAIT).until(() -> platform.codeOf(first) == 500);
        assertThat(herald.turns()).isEmpty();

        herald.freeDisk();
        String again = platform.event(event);
        String third = platform.event(event);
        await().atMost(WAIT).until(() -> platform.codeOf(again) == 200 && platform.codeOf(third) == 200);
        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(feishu.sentTo(DM).getFirst().text()).isEqualTo("echo: question");
    }

    @Test
    void anEventDeliveredAgainAfterACrash_isNotAnsweredTwice() {
        herald.start();
        String event = hello("06", "once only");
        platform.event(event);
        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);

        herald.crash();
        herald.start();
        await().atMost(WAIT).until(() -> platform.connections.get() == 2 && platform.connected());
        String again = platform.event(event);

        await().atMost(WAIT).until(() -> platform.codeOf(again) == 200);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);
        assertThat(herald.agent.calls()).as("the new process ran no turn for it").isEmpty();
    }

    @Test
    void anEndpointThatRefusesTheApp_failsTheStartNamingTheKeys_andNeverTheSecret() {
        platform.refuseEndpoint = true;
        FeishuAdapter adapter = new FeishuAdapter(feishu.settings, FakeFeishu.timing(), herald.clock, herald.storage.platformState());
        RecordingSink sink = new RecordingSink();

        assertThatThrownBy(() -> adapter.start(sink)).hasMessageContaining("code 514")
                .hasMessageContaining("check platforms.feishu.app_id and platforms.feishu.app_secret").message().doesNotContain(FakeFeishu.SECRET);
        assertThat(sink.states).last().isEqualTo(ConnectionState.STOPPED);
        assertThat(platform.connections.get()).isZero();
    }
}
