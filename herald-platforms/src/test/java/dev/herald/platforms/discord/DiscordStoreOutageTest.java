package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Discord never redelivers a message: while the store cannot write (a full disk), the adapter holds what arrives, in
 * order, and hands it over again until the store takes it; then each is answered once.
 */
class DiscordStoreOutageTest {
    final FakeDiscord discord = new FakeDiscord();
    @RegisterExtension
    final GatewayFixture herald = discord.herald("u1");

    @Test
    void messagesWhileTheDiskIsFull_areHeldInOrder_andAnsweredOnceWhenTheStoreWritesAgain() {
        herald.start();
        herald.fillDisk();
        discord.message("7401", "dm-1", null, "u1", "first");
        discord.message("7402", "dm-1", null, "u1", "second");

        await().during(Duration.ofMillis(700)).atMost(WAIT).until(() -> herald.turns().isEmpty() && discord.postsTo("dm-1").isEmpty());
        herald.freeDisk();

        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 2);
        assertThat(discord.postsTo("dm-1")).extracting(FakeDiscord.Post::content).containsExactly("echo: first", "echo: second");
        assertThat(herald.turns()).extracting(t -> t.text()).containsExactly("first", "second");
    }
}
