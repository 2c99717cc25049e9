package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Delivery semantics on Discord: a reply part carries a nonce Discord enforces, so a resend after a crash between
 * Discord creating the message and Herald recording its answer is the same message, not a second one.
 */
class DiscordDeliveryTest {
    final FakeDiscord discord = new FakeDiscord();
    @RegisterExtension
    final GatewayFixture herald = discord.herald("u1");

    private TurnRecord onlyTurn() {
        return herald.turns().stream().filter(t -> t.text().equals("question")).findFirst().orElseThrow();
    }

    @Test
    void aCrashBetweenSendAndAnswer_isResentWithTheSameNonce_andTheChatHasOneMessage() {
        discord.answerDelay = Duration.ofMillis(150); // a slow API: the message exists well before its answer arrives
        herald.start();
        herald.agent.reply("the one answer");

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1)) {
            discord.message("7301", "dm-1", null, "u1", "question");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(onlyTurn()).extracting(TurnRecord::state, TurnRecord::sendingPart).as("handed to Discord, no answer recorded")
                .containsExactly(TurnState.AWAITING_DELIVERY, 1);
        String created = discord.postsTo("dm-1").getFirst().id();
        herald.crash(); // Discord created the message; its answer was never recorded
        herald.start();

        await().atMost(WAIT).until(() -> onlyTurn().state() == TurnState.DELIVERED);
        assertThat(discord.postsTo("dm-1")).as("one message in the chat").singleElement()
                .satisfies(p -> assertThat(p.content()).isEqualTo("the one answer"));
        assertThat(discord.nonceReplays).as("the resend was answered with the first message").hasValue(1);
        assertThat(onlyTurn().replyMessageId()).isEqualTo(created);
        assertThat(discord.postsTo("dm-1").getFirst().body().path("enforce_nonce").asBoolean()).isTrue();
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }

    @Test
    void aNoticeCarriesNoNonce_soTwoNoticesAreTwoMessages() {
        herald.start();

        discord.message("7302", "dm-1", null, "u1", "/help");
        discord.message("7303", "dm-1", null, "u1", "/help");

        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 2);
        assertThat(discord.postsTo("dm-1")).allSatisfy(p -> assertThat(p.body().has("nonce")).isFalse());
    }
}
