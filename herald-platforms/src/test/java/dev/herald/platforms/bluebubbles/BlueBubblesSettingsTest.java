package dev.herald.platforms.bluebubbles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.RecordingSink;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The settings: a webhook secret is required (BlueBubbles does not sign its webhooks), the send method is one of the
 * two BlueBubbles knows, mention names are needed when groups require them, addresses are normalised, secrets never
 * shown; a refused password stops the start without naming its value.
 */
class BlueBubblesSettingsTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.bluebubbles", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml line 3";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });

    /** The first problem validation names, or none. */
    private static List<String> problems(BlueBubblesSettings s) {
        try {
            s.validate(CHECK);
            return List.of();
        } catch (RuntimeException e) {
            return List.of(e.getMessage());
        }
    }

    @Test
    void aWebhookSecret_aKnownSendMethod_andMentionNames_areRequired() {
        var good = BlueBubblesSettings.of("http://127.0.0.1:1234", "pw", "a-long-enough-secret-123");
        assertThat(problems(good)).isEmpty();
        assertThat(String.join("\n", problems(BlueBubblesSettings.of("http://127.0.0.1:1234", "pw", ""))))
                .contains("webhook_secret").contains("does not sign");
        assertThat(String.join("\n", problems(BlueBubblesSettings.of("http://127.0.0.1:1234", "pw", "short")))).contains("at least 16");
        assertThat(String.join("\n", problems(good.withSendMethod("carrier-pigeon")))).contains("send_method");
        assertThat(problems(good.withSendMethod("Private-API"))).isEmpty();
        assertThat(String.join("\n", problems(good.withMentionNames(List.of())))).contains("mention_names");
        assertThat(problems(good.withMentionNames(List.of()).withRequireMention(false))).isEmpty();
        assertThat(String.join("\n", problems(BlueBubblesSettings.of("ftp://mac", "pw", "a-long-enough-secret-123")))).contains("url");
    }

    @Test
    void addressesAreNormalised_andSecretsMasked() {
        assertThat(BlueBubblesSettings.userId("+1 (555) 123-4567")).isEqualTo("+15551234567");
        assertThat(BlueBubblesSettings.userId("Bob@Example.COM")).isEqualTo("bob@example.com");
        var s = BlueBubblesSettings.of("http://127.0.0.1:1234", "the-password", "the-webhook-secret-value");
        assertThat(s.toString()).doesNotContain("the-password").doesNotContain("the-webhook-secret-value");
        assertThat(BlueBubblesAdapter.tempGuid("k1", "text")).isEqualTo(BlueBubblesAdapter.tempGuid("k1", "text"))
                .isNotEqualTo(BlueBubblesAdapter.tempGuid("k2", "text")).isNotEqualTo(BlueBubblesAdapter.tempGuid("k1", "file"));
    }

    @Test
    void aRefusedPassword_stopsTheStart_namingTheKey_butNotItsValue() {
        try (var bb = new FakeBlueBubbles()) {
            var settings = BlueBubblesSettings.of(bb.url(), "a-wrong-password-1234", FakeBlueBubbles.SECRET);
            var sink = new RecordingSink();
            var timing = new BlueBubblesSettings.Timing(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofSeconds(20));
            try (var adapter = new BlueBubblesAdapter(settings, timing, Clock.systemUTC())) {
                assertThatThrownBy(() -> adapter.start(sink)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("platforms.bluebubbles.password").hasMessageNotContaining("a-wrong-password-1234");
            }
            assertThat(sink.states).last().isEqualTo(ConnectionState.STOPPED);
            assertThat(String.join(" ", sink.details)).doesNotContain("a-wrong-password-1234");
        }
    }
}
