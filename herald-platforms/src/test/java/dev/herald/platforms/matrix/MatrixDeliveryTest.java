package dev.herald.platforms.matrix;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.matrix.FakeMatrix.ALICE;
import static dev.herald.platforms.matrix.FakeMatrix.BOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformState;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Delivery semantics on Matrix: the sync token is stored only after the gateway took the batch (a crash before that
 * reads the batch again, and the store's dedupe answers it once); a reply part resent after a crash carries the same
 * transaction id, so the homeserver keeps one event (exactly once); a turn cut off by a crash is answered once.
 */
class MatrixDeliveryTest {
    final FakeMatrix matrix = new FakeMatrix();
    /** While set, the adapter's writes of next_batch are lost, as if the process died between accept and the write. */
    final AtomicBoolean losingToken = new AtomicBoolean();
    @RegisterExtension
    final GatewayFixture herald = MatrixFixtures.herald(matrix, h -> new LosingToken(h.storage.platformState(), losingToken));

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    private Optional<String> storedToken() {
        return herald.storage.platformState().get(MatrixAdapter.PLATFORM, MatrixSync.NEXT_BATCH);
    }

    @Test
    void aCrashAfterAcceptButBeforeTheTokenIsStored_readsTheEventAgain_andAnswersItOnce() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        String before = storedToken().orElseThrow();
        losingToken.set(true);

        matrix.text(dm, ALICE, "question");
        await().atMost(WAIT).until(() -> turnOf("question").state() == TurnState.DELIVERED);
        assertThat(storedToken()).as("the token after the question was never stored").hasValue(before);
        herald.crash();
        losingToken.set(false);
        herald.start();

        await().atMost(WAIT).until(() -> !storedToken().orElseThrow().equals(before));
        assertThat(matrix.requests("GET", "/sync").stream().filter(r -> r.query().contains("since=" + before)).count())
                .as("the new process synced from the old token").isGreaterThanOrEqualTo(2);
        assertThat(matrix.botEvents(dm)).as("answered once").singleElement().satisfies(e -> assertThat(e.body()).isEqualTo("echo: question"));
        assertThat(herald.turns()).hasSize(1);
        assertThat(herald.agent.calls()).as("the re-read event was a duplicate").isEmpty();
    }

    @Test
    void aCrashBetweenSendAndAnswer_isResentWithTheSameTxnId_andTheRoomHasOneEvent() {
        matrix.answerDelay = Duration.ofMillis(150); // the event exists well before its answer arrives
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        herald.agent.reply("the one answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            matrix.text(dm, ALICE, "question");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(turnOf("question")).extracting(TurnRecord::state, TurnRecord::sendingPart).as("handed to the homeserver, no answer recorded")
                .containsExactly(TurnState.AWAITING_DELIVERY, 1);
        String created = matrix.botEvents(dm).getFirst().event().path("event_id").asText();
        herald.crash();
        matrix.answerDelay = Duration.ZERO;
        herald.start();

        await().atMost(WAIT).until(() -> turnOf("question").state() == TurnState.DELIVERED);
        assertThat(matrix.botEvents(dm)).as("one event in the room").singleElement()
                .satisfies(e -> assertThat(e.body()).isEqualTo("the one answer"));
        assertThat(matrix.txnReplays).as("the resend was answered with the first event").hasValue(1);
        var sends = matrix.requests("PUT", "/send/m.room.message/");
        assertThat(sends).hasSize(2);
        assertThat(sends.get(1).path()).as("the same transaction id").isEqualTo(sends.get(0).path());
        assertThat(turnOf("question").replyMessageId()).isEqualTo(created);
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    @Test
    void aCrashDuringATurn_isResumedByTheNextProcess_andAnsweredExactlyOnce() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("lost with the process");
        String asked = matrix.text(dm, ALICE, "work on this");
        hold.awaitArrival(WAIT);

        herald.crash();
        herald.agent.reply("resumed after the crash");
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(300)).until(() -> matrix.botEvents(dm).size() == 1);
        var reply = matrix.botEvents(dm).getFirst().content();
        assertThat(reply.path("body").asText()).isEqualTo("resumed after the crash");
        assertThat(reply.path("m.relates_to").path("m.in_reply_to").path("event_id").asText())
                .as("the resumed answer replies to the message it continues").isEqualTo(asked);
        assertThat(herald.agent.calls()).hasSize(1);
    }

    /** The store's platform state, except that writes of next_batch vanish while {@code losing} is set. */
    record LosingToken(PlatformState store, AtomicBoolean losing) implements PlatformState {
        @Override
        public Optional<String> get(Platform platform, String name) {
            return store.get(platform, name);
        }

        @Override
        public Map<String, String> all(Platform platform) {
            return store.all(platform);
        }

        @Override
        public void put(Platform platform, Map<String, String> values) {
            if (losing.get() && values.containsKey(MatrixSync.NEXT_BATCH)) {
                return;
            }
            store.put(platform, values);
        }
    }
}
