package dev.herald.platforms.whatsapp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What Meta's answers mean for a reply: the 24-hour customer service window (error 131047, or a last message known to
 * be older) never drops a reply silently, a rate limit (130429) is waited out and retried, an expired token (190) is
 * named by its key and never shown.
 */
class WhatsAppWindowTest {
    static final String ALICE = WhatsAppWebhookTest.ALICE;

    final FakeWhatsApp meta = new FakeWhatsApp();
    @RegisterExtension
    final GatewayFixture herald = meta.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    private void ask(String wamid, String text) {
        meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, wamid, text)));
    }

    @Test
    void windowClosed_error131047_sendsTheConfiguredTemplate_andTheTurnSaysTheReplyWasNotDelivered() {
        meta.settings = meta.settings.withReplyTemplate(new WhatsAppSettings.ReplyTemplate("reply_ready", "en_US"));
        herald.start();
        meta.closed.add(ALICE);

        ask("wamid.HBgLWIN1", "the long job");
        await().atMost(WAIT).until(() -> turnOf("the long job").state() == TurnState.UNDELIVERABLE);

        assertThat(meta.refused).extracting(FakeWhatsApp.Sent::error).containsExactly(131047);
        assertThat(meta.sentTo(ALICE)).singleElement().satisfies(t -> {
            assertThat(t.type()).isEqualTo("template");
            assertThat(t.body().path("template").path("name").asText()).isEqualTo("reply_ready");
            assertThat(t.body().path("template").path("language").path("code").asText()).isEqualTo("en_US");
        });
        assertThat(turnOf("the long job").deliveryError()).contains("24-hour customer service window with " + ALICE + " is closed")
                .contains("error 131047").contains("sent template reply_ready");
    }

    @Test
    void windowClosed_withoutATemplate_failsForGood_namingTheWindowAndTheKey() {
        herald.start();
        meta.closed.add(ALICE);

        ask("wamid.HBgLWIN2", "the long job");
        await().atMost(WAIT).until(() -> turnOf("the long job").state() == TurnState.UNDELIVERABLE);

        assertThat(meta.sent).isEmpty();
        assertThat(meta.refused).as("not retried: only the person can open the window").hasSize(1);
        assertThat(turnOf("the long job").deliveryError()).contains("24-hour customer service window").contains("platforms.whatsapp.reply_template");
    }

    @Test
    void aLastMessageOlderThan24Hours_inTheStore_isNotAnsweredFreeForm_noRequestIsMade() {
        herald.start();
        var old = FakeWhatsApp.text(ALICE, "wamid.HBgLWIN3", "from yesterday");
        old.put("timestamp", Long.toString(Instant.now().minus(Duration.ofHours(25)).getEpochSecond())); // a very late redelivery

        meta.post(FakeWhatsApp.notification(ALICE, "Alice", old));
        await().atMost(WAIT).until(() -> turnOf("from yesterday").state() == TurnState.UNDELIVERABLE);

        assertThat(meta.messageCalls.get()).isZero();
        assertThat(turnOf("from yesterday").deliveryError()).contains("24-hour customer service window").contains("last message arrived at");
    }

    @Test
    void rateLimit130429_isWaitedOutAndRetried_andTheReplyArrivesOnce() {
        herald.start();
        meta.errors.add(130429);

        ask("wamid.HBgLRATE", "quick question");
        await().atMost(WAIT).until(() -> turnOf("quick question").state() == TurnState.DELIVERED);

        assertThat(meta.refused).extracting(FakeWhatsApp.Sent::error).containsExactly(130429);
        assertThat(meta.sentTo(ALICE)).extracting(FakeWhatsApp.Sent::text).containsExactly("echo: quick question");
    }

    @Test
    void anExpiredToken_190_namesTheKey_neverTheToken() {
        herald.start();
        meta.errors.add(190);

        ask("wamid.HBgLTOKN", "hello");
        await().atMost(WAIT).until(() -> turnOf("hello").deliveryError() != null);

        assertThat(turnOf("hello").deliveryError()).contains("platforms.whatsapp.access_token").contains("error 190")
                .doesNotContain(FakeWhatsApp.TOKEN);
    }
}
