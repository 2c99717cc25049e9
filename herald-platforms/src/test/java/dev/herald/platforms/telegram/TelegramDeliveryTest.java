package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.gateway.Invariant;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Delivery semantics on Telegram, which has no idempotency key: a part handed to Telegram whose answer was not
 * recorded before a crash is sent once more (at least once), and a part whose answer was recorded never is.
 */
class TelegramDeliveryTest {
    private static final String TOKEN = "4242:fake-secret-token";
    private static final long USER = 100;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).closing(fake);

    private TurnRecord turnOf(String text) {
        return h.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    private List<String> sentTexts() {
        return fake.calls("sendMessage").stream().map(c -> c.body().path("text").asText()).toList();
    }

    @Test
    void aCrashBetweenSendAndAnswer_resendsOnlyThePartInDoubt_once() {
        fake.sendDelay = Duration.ofMillis(150); // Telegram answers late: the part is in the chat before Herald hears so
        h.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "Telegram has no idempotency key: the last part, in doubt after the crash, "
                + "reaches the chat twice by design (at least once)");
        h.start();
        String first = "a".repeat(4096);
        String second = "b".repeat(900);
        h.agent.reply(first + second);

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1, 1)) { // part 1 recorded, part 2 not
            fake.userSays(USER, "a long question");
            await().atMost(WAIT).until(crash::fired);
        }
        TurnRecord inDoubt = turnOf("a long question");
        assertThat(inDoubt.state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        assertThat(inDoubt.sendingPart()).as("part 2 handed to Telegram, no answer recorded").isEqualTo(2);
        String part1 = sentTexts().get(0);
        String part2 = sentTexts().get(1);
        assertThat(part1 + part2).isEqualTo(first + second);
        assertThat(inDoubt.partsDelivered()).as("part 1's answer was recorded").isEqualTo(1);
        h.crash();
        h.start();

        await().atMost(WAIT).until(() -> turnOf("a long question").state() == TurnState.DELIVERED);
        assertThat(sentTexts()).as("part 1 once (its answer was recorded), part 2 at most once more").containsExactly(part1, part2, part2);
        assertThat(turnOf("a long question").partMessageIds()).hasSize(1);
        assertThat(h.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
