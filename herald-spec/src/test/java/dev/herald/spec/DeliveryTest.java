package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.gateway.StopKind;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replies that the platform does not take at once: retried in the background while the platform stays
 * connected, never sent twice (a split reply continues after the parts already sent), and a reply the
 * platform refuses for good is reported by /status instead of being retried forever.
 */
class DeliveryTest extends GatewaySpec {
    @AfterEach
    void stopGateway() {
        if (h != null && h.gateway != null) {
            h.gateway.stop(StopKind.SHUTDOWN, false); // runs before the harness closes: it has a background retry
        }
    }

    private LoopbackPlatform chat() {
        return h.loopback("telegram");
    }

    private SessionKey key() {
        return h.entry(alice).key();
    }

    private TurnRecord latestStarted() {
        return h.storage.turns().latestStarted(key()).orElseThrow();
    }

    private Harness harness() {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withRedeliveryInterval(Duration.ofMillis(50));
        return h;
    }

    private static boolean isReply(OutboundMessage m) {
        return m.kind() == MessageKind.REPLY;
    }

    @Test
    void aReplyThatFailsWhileThePlatformStaysConnected_isRetriedInTheBackground_andArrivesOnce() {
        harness().start();
        AtomicBoolean down = new AtomicBoolean(true);
        chat().onSend(m -> down.get() && isReply(m) ? SendResult.failed("502 Bad Gateway", true) : SendResult.sent("ok"));

        chat().say(alice, "hello");
        await().atMost(Harness.WAIT).until(() -> h.storage.turns().latestStarted(key()).map(TurnRecord::deliveryAttempts).orElse(0) >= 1);
        chat().say(alice, "/status");
        assertThat(chat().awaitSent(t -> t.startsWith("Session:"), Harness.WAIT).text())
                .contains("Last reply: not delivered yet (").contains("last: 502 Bad Gateway); Herald keeps trying");

        down.set(false);
        h.clock.advance(Duration.ofMinutes(31)); // past any back-off

        await().atMost(Harness.WAIT).until(() -> latestStarted().state() == TurnState.DELIVERED);
        assertThat(chat().sentMatching("echo: hello"::equals)).hasSize(1);
        assertThat(h.agent.calls()).as("delivered from the record, not generated again").hasSize(1);
    }

    @Test
    void aSplitReplyWhoseSecondPartFails_continuesWithThatPart_andNeverRepeatsTheFirst() {
        harness().start();
        AtomicBoolean secondPartFails = new AtomicBoolean(true);
        chat().onSend(m -> secondPartFails.get() && isReply(m) && m.part() == 2
                ? SendResult.failed("timeout", true) : SendResult.sent("m-" + m.part()));
        String longText = "x".repeat(6_000);

        chat().say(alice, longText);
        await().atMost(Harness.WAIT).until(() -> h.storage.turns().latestStarted(key()).map(TurnRecord::deliveryAttempts).orElse(0) >= 1);
        assertThat(latestStarted().partsDelivered()).isEqualTo(1);
        assertThat(latestStarted().deliveryError()).isEqualTo("part 2 of 2: timeout");

        secondPartFails.set(false);
        h.clock.advance(Duration.ofMinutes(31));

        await().atMost(Harness.WAIT).until(() -> latestStarted().state() == TurnState.DELIVERED);
        assertThat(chat().sent()).filteredOn(s -> isReply(s.message())).extracting(s -> s.message().part())
                .as("each part once, in order").containsExactly(1, 2);
        String delivered = chat().sent().stream().filter(s -> isReply(s.message())).map(LoopbackPlatform.Sent::text)
                .reduce("", String::concat);
        assertThat(delivered).isEqualTo("echo: " + longText);
    }

    @Test
    void aReplyThePlatformRefusesForGood_isUndeliverable_shownByStatus_andNotRetried() {
        List<String> reported = new CopyOnWriteArrayList<>();
        harness().metrics = new GatewayMetrics() {
            @Override
            public void replyNotDelivered(Platform platform, boolean permanent) {
                reported.add(platform.id() + (permanent ? " for good" : " for now"));
            }
        };
        h.start();
        chat().onSend(m -> isReply(m) ? SendResult.failed("403 Forbidden: bot was blocked by the user", false) : SendResult.sent("ok"));

        chat().say(alice, "hello");
        await().atMost(Harness.WAIT).until(() -> latestStarted().state() == TurnState.UNDELIVERABLE);
        h.clock.advance(Duration.ofHours(2));
        chat().say(alice, "/status");

        assertThat(chat().awaitSent(t -> t.startsWith("Session:"), Harness.WAIT).text())
                .contains("Last reply: could not be delivered (403 Forbidden: bot was blocked by the user)");
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                .until(() -> chat().failedSends().stream().filter(DeliveryTest::isReply).count() == 1);
        assertThat(reported).containsExactly("telegram for good");
    }

    @Test
    void aReplyLeftHalfSentByACrash_isFinishedAfterTheRestart_fromThePartItStoppedAt() {
        h = new Harness(dir).platform("telegram", true); // no background retry: the restart delivers it
        h.start();
        chat().onSend(m -> isReply(m) && m.part() == 2 ? SendResult.failed("connection reset", true) : SendResult.sent("m-" + m.part()));
        String longText = "y".repeat(5_000);
        chat().say(alice, longText);
        await().atMost(Harness.WAIT).until(() -> h.storage.turns().latestStarted(key()).map(TurnRecord::partsDelivered).orElse(0) == 1);

        h.restart(); // the old process is gone without a stop
        h.start();

        await().atMost(Harness.WAIT).until(() -> latestStarted().state() == TurnState.DELIVERED);
        assertThat(chat().sent()).filteredOn(s -> isReply(s.message())).extracting(s -> s.message().part()).containsExactly(2);
        assertThat(h.agent.calls()).as("no turn runs again for a recorded reply").isEmpty();
    }
}
