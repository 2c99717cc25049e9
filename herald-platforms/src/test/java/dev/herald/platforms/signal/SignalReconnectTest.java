package dev.herald.platforms.signal;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE_UUID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The event stream across a daemon restart (the fake stops and starts on the same port) and across Herald's own
 * restart: the adapter opens the stream again with {@link dev.herald.core.retry.Backoff}, tells the daemon where it was
 * ({@code Last-Event-ID}, kept in the store), and every message is answered once.
 */
class SignalReconnectTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeSignalCli signal = new FakeSignalCli();
    @RegisterExtension
    final GatewayFixture herald = signal.herald(ALICE_UUID);

    @Test
    void theDaemonRestarts_theAdapterConnectsAgain_andAnswersWhatCameMeanwhileAndAfter() {
        herald.start();
        signal.dm(ALICE_UUID, ALICE, "before");
        await().atMost(WAIT).until(() -> signal.textsTo(ALICE_UUID).size() == 1);
        int opened = signal.streamsOpened.get();

        signal.stop();
        signal.dm(ALICE_UUID, ALICE, "while the daemon was down"); // waits at Signal's servers
        signal.startAgain();
        await().atMost(WAIT).until(() -> signal.streamsOpened.get() > opened && signal.connected());
        signal.dm(ALICE_UUID, ALICE, "after");

        await().atMost(WAIT).during(SETTLE).until(() -> signal.textsTo(ALICE_UUID).size() == 3);
        assertThat(signal.textsTo(ALICE_UUID)).containsExactly("echo: before", "echo: while the daemon was down", "echo: after");
        assertThat(herald.agent.calls()).hasSize(3);
        assertThat(signal.lastEventIds.getLast()).as("the position from the old run is sent; the new run does not know it").isNotEmpty();
    }

    @Test
    void heraldRestarts_whileTheDaemonKeepsReceiving_theDaemonHandsOverWhatHeraldMissed_byTheStoredPosition() {
        signal.keepWhileAway = true;
        herald.start();
        signal.dm(ALICE_UUID, ALICE, "first");
        await().atMost(WAIT).until(() -> signal.textsTo(ALICE_UUID).size() == 1);

        herald.stop(StopKind.RESTART);
        signal.dm(ALICE_UUID, ALICE, "while Herald was away");
        signal.dm(ALICE_UUID, ALICE, "and another");
        herald.restart();

        await().atMost(WAIT).during(SETTLE).until(() -> signal.textsTo(ALICE_UUID).size() == 3);
        assertThat(signal.textsTo(ALICE_UUID)).containsExactly("echo: first", "echo: while Herald was away", "echo: and another");
        assertThat(herald.agent.calls()).as("the new process answers only what it had not seen").hasSize(2);
        assertThat(herald.storage.platformState().get(SignalAdapter.PLATFORM, SignalAdapter.LAST_EVENT_ID)).isPresent();
        assertThat(signal.lastEventIds.getLast()).as("the position of the first message, read back from the store").endsWith("-1");
    }

    @Test
    void noDaemonAtStart_startReturns_andTheAdapterConnectsWhenTheDaemonComesUp() throws Exception {
        signal.stop();
        RecordingSink sink = new RecordingSink();
        SignalAdapter adapter = new SignalAdapter(SignalSettings.of(signal.url(), FakeSignalCli.BOT), FakeSignalCli.timing(),
                Clock.systemUTC(), null);
        try {
            adapter.start(sink);
            assertThat(sink.states).contains(ConnectionState.BACKING_OFF);
            assertThat(sink.details).anyMatch(d -> d.contains("ConnectException"));

            signal.startAgain();
            await().atMost(WAIT).until(() -> sink.states.contains(ConnectionState.CONNECTED));
        } finally {
            adapter.close();
        }
    }
}
