package dev.herald.platforms.waha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Secret;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code platforms.waha}'s own rules: what an operator sees for a missing key, a wrong url, session or user id. */
class WahaSettingsTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.waha", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml line 3";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });

    private static WahaSettings with(String url, String session, String apiKey, String hmacKey, List<String> users) {
        WahaSettings d = WahaSettings.defaults();
        return new WahaSettings(true, url, session, Secret.of(apiKey), Secret.of(hmacKey), true, users, false, List.of(), d.homeChannel(),
                d.unauthorizedDm());
    }

    @Test
    void anEnabledSection_needsTheUrl_theApiKey_andTheHmacKey() {
        assertThatCode(() -> WahaSettings.of("http://127.0.0.1:3000", "default", "k", "h").validate(CHECK)).doesNotThrowAnyException();
        assertThatCode(() -> WahaSettings.defaults().validate(CHECK)).as("a disabled section needs nothing").doesNotThrowAnyException();
        assertThatThrownBy(() -> with("", "default", "k", "h", List.of()).validate(CHECK)).hasMessageContaining("platforms.waha.url is required");
        assertThatThrownBy(() -> with("http://127.0.0.1:3000", "default", "", "h", List.of()).validate(CHECK))
                .hasMessageContaining("platforms.waha.api_key is required");
        assertThatThrownBy(() -> with("http://127.0.0.1:3000", "default", "k", "", List.of()).validate(CHECK))
                .hasMessageContaining("platforms.waha.hmac_key is required").hasMessageContaining("forged");
        assertThatThrownBy(() -> with("ftp://127.0.0.1", "default", "k", "h", List.of()).validate(CHECK))
                .hasMessageContaining("platforms.waha.url must be an http(s) URL");
        assertThatThrownBy(() -> with("http://127.0.0.1:3000", "my session", "k", "h", List.of()).validate(CHECK))
                .hasMessageContaining("platforms.waha.session must be a WAHA session name");
    }

    @Test
    void users_areNumbersDigitsOnly_orHiddenIds_howeverTheyAreWritten() {
        WahaSettings s = with("http://127.0.0.1:3000", "", "k", "h", List.of("+49 151 1234-5678", "4915187654321@c.us", "123456789@lid"));
        assertThat(s.allowedUsers()).containsExactly("4915112345678", "4915187654321", "123456789@lid");
        assertThat(s.session()).as("the default session").isEqualTo("default");
        assertThatCode(() -> s.validate(CHECK)).doesNotThrowAnyException();
        assertThatThrownBy(() -> with("http://127.0.0.1:3000", "default", "k", "h", List.of("alice")).validate(CHECK))
                .hasMessageContaining("platforms.waha.allowed_users must be phone numbers");
    }

    @Test
    void printing_masksBothSecrets() {
        String printed = WahaSettings.of("http://127.0.0.1:3000", "default", "the-api-key-123", "the-hmac-key-456").toString();
        assertThat(printed).contains("api_key=****", "hmac_key=****", "http://127.0.0.1:3000").doesNotContain("the-api-key-123", "the-hmac-key-456");
    }
}
