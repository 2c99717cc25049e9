package dev.herald.agent.model;

import dev.herald.core.retry.Backoff;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ModelSettingsTest {

    @Test
    void toString_masksTheApiKey() {
        ModelSettings settings = ModelSettings.of(URI.create("http://127.0.0.1:11434/v1"), "llama3.1").withApiKey("sk-very-secret");

        assertThat(settings.toString()).contains("apiKey=***").doesNotContain("sk-very-secret");
        assertThat(settings.withApiKey(null).toString()).contains("apiKey=(none)");
    }

    @Test
    void baseUrl_trailingSlashIsDroppedAndChatPathAppended() {
        ModelSettings settings = ModelSettings.of(URI.create("http://127.0.0.1:11434/v1/"), "llama3.1");

        assertThat(settings.endpoint()).isEqualTo("http://127.0.0.1:11434/v1");
        assertThat(settings.chatCompletionsUri()).hasToString("http://127.0.0.1:11434/v1/chat/completions");
    }

    @Test
    void defaults_applyWhenTimeoutsAreMissing() {
        ModelSettings settings = new ModelSettings(URI.create("https://api.example.com/v1"), " ", "m", null, null, 0);

        assertThat(settings.connectTimeout()).isEqualTo(ModelSettings.DEFAULT_CONNECT_TIMEOUT);
        assertThat(settings.idleTimeout()).isEqualTo(ModelSettings.DEFAULT_IDLE_TIMEOUT);
        assertThat(settings.hasApiKey()).as("a blank key is no key").isFalse();
    }

    @Test
    void invalidValues_areRejectedNamingTheSetting() {
        URI url = URI.create("http://127.0.0.1:11434/v1");
        assertThatThrownBy(() -> ModelSettings.of(URI.create("ftp://x/v1"), "m")).hasMessageContaining("model.base_url");
        assertThatThrownBy(() -> ModelSettings.of(URI.create("http://user:pw@x/v1"), "m")).hasMessageContaining("model.api_key");
        assertThatThrownBy(() -> ModelSettings.of(url, " ")).hasMessageContaining("model.name");
        assertThatThrownBy(() -> new ModelSettings(url, null, "m", null, Duration.ZERO, 1)).hasMessageContaining("model.idle_timeout");
        assertThatThrownBy(() -> new ModelSettings(url, null, "m", null, null, 11)).hasMessageContaining("model.max_retries");
    }

    @Test
    void numbersInMessages_areGroupedWithCommasWhateverTheLocale() {
        assertThat(ModelException.number(2140)).isEqualTo("2,140");
        assertThat(ModelException.unreachable("http://127.0.0.1:1/v1", 3, 2140, "connection refused", null).getMessage())
                .isEqualTo("model - http://127.0.0.1:1/v1 unreachable after 3 attempts in 2,140 ms (connection refused); is the server running?");
    }

    @Test
    void backoff_growsExponentiallyWithJitterUpToTheCap() {
        Backoff backoff = Backoff.jittered(Duration.ofMillis(100), Duration.ofMillis(1_000), Duration.ofSeconds(60));

        for (int i = 0; i < 50; i++) {
            assertThat(backoff.delay(1).toMillis()).isBetween(50L, 100L);
            assertThat(backoff.delay(3).toMillis()).isBetween(200L, 400L);
            assertThat(backoff.delay(30).toMillis()).isBetween(500L, 1_000L);
        }
    }
}
