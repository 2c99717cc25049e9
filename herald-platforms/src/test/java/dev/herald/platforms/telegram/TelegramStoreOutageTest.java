package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * While the store cannot write (a full disk), an update is not confirmed: Telegram hands it over again at every poll,
 * and once the store writes again it is stored and answered, once.
 */
class TelegramStoreOutageTest {
    private static final String TOKEN = "4242:fake-secret-token";
    private static final long USER = 100;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).closing(fake);

    private long pollsFrom(long updateId) {
        return fake.calls("getUpdates").stream().filter(c -> c.body().path("offset").asLong(0) <= updateId).count();
    }

    @Test
    void updateWhileTheDiskIsFull_isLeftUnconfirmed_andAnsweredOnceWhenTheStoreWritesAgain() {
        h.start();
        h.fillDisk();
        long id = fake.userSays(USER, "hello").path("update_id").asLong();
        long before = pollsFrom(id);

        await().atMost(WAIT).until(() -> pollsFrom(id) >= before + 2); // handed over again: not confirmed
        assertThat(h.turns()).as("nothing stored").isEmpty();
        assertThat(fake.calls("sendMessage")).isEmpty();
        h.freeDisk();

        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 1);
        assertThat(fake.calls("sendMessage").getFirst().body().path("text").asText()).isEqualTo("echo: hello");
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 1);
        assertThat(h.turns()).singleElement().satisfies(t -> assertThat(t.text()).isEqualTo("hello"));
    }
}
