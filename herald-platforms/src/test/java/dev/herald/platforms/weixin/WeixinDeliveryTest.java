package dev.herald.platforms.weixin;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.gateway.Invariant;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delivery semantics on Weixin, whose sendmessage has no idempotency key: a reply the iLink server took whose answer
 * was not recorded before a crash is sent once more after the restart (at least once), never generated again.
 */
class WeixinDeliveryTest {
    private static final String TOKEN = "ilink-secret-token";
    private static final String USER = "wxid_alice@im.wechat";

    @TempDir
    Path dir;

    private final FakeILink fake = new FakeILink(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new WeixinAdapter(fake.settings(TOKEN),
            new WeixinSettings.Timing(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(50),
                    Duration.ofMillis(300)), dir.resolve("weixin/state.json"), clock)).allow(USER).closing(fake);

    private TurnRecord onlyTurn() {
        return h.turns().stream().filter(t -> t.text().equals("question")).findFirst().orElseThrow();
    }

    @Test
    void aCrashBetweenSendAndAnswer_sendsTheReplyOnceMore_afterTheRestart() {
        fake.answerDelay = Duration.ofMillis(150);
        h.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "Weixin has no idempotency key: the reply, in doubt after the crash, "
                + "reaches the chat twice by design (at least once)");
        h.start();
        h.agent.reply("the answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            fake.userSays(USER, "question", "ctx-1");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn()).extracting(TurnRecord::state, TurnRecord::sendingPart).containsExactly(TurnState.AWAITING_DELIVERY, 1);
        h.crash();
        h.start();

        await().atMost(WAIT).until(() -> onlyTurn().state() == TurnState.DELIVERED);
        assertThat(fake.sent()).extracting(m -> m.path("item_list").get(0).path("text_item").path("text").asText())
                .as("at least once: the part in doubt went out again").containsExactly("the answer", "the answer");
        assertThat(h.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
