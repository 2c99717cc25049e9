package dev.herald.platforms.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code platforms.signal}'s own rules: what an operator sees for a wrong url, account or user id. */
class SignalSettingsTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.signal", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml line 3";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });

    @Test
    void plainHttp_isAllowedOnlyToALoopbackHost_andHttpsAnywhere() {
        assertThatCode(() -> SignalSettings.of("http://127.0.0.1:8080", "+15551234567").validate(CHECK)).doesNotThrowAnyException();
        assertThatCode(() -> SignalSettings.of("http://localhost:8080/", "+15551234567").validate(CHECK)).doesNotThrowAnyException();
        assertThatCode(() -> SignalSettings.of("https://signal.example.org", "+15551234567").validate(CHECK)).doesNotThrowAnyException();
        assertThatThrownBy(() -> SignalSettings.of("http://10.0.0.5:8080", "+15551234567").validate(CHECK))
                .hasMessageContaining("platforms.signal.url may use http only to a loopback host");
        assertThatThrownBy(() -> SignalSettings.of("ftp://127.0.0.1", "+15551234567").validate(CHECK))
                .hasMessageContaining("platforms.signal.url must be an http(s) URL");
    }

    @Test
    void theAccount_mustBeAnInternationalNumber_andUsers_UuidsOrNumbers() {
        assertThatThrownBy(() -> SignalSettings.of(SignalSettings.DEFAULT_URL, "015551234567").validate(CHECK))
                .hasMessageContaining("platforms.signal.account must be the bot's number in international form");
        assertThatThrownBy(() -> SignalSettings.of(SignalSettings.DEFAULT_URL, "+15551234567").withAllowedUsers(List.of("alice")).validate(CHECK))
                .hasMessageContaining("platforms.signal.allowed_users entries must be ACI UUIDs or +E.164 numbers");
        assertThatCode(() -> SignalSettings.defaults().validate(CHECK)).as("a disabled section needs no account").doesNotThrowAnyException();
    }

    @Test
    void uuidsInCapitals_matchAsSignalCliWritesThem_andNumbersAreKnownAsListed() {
        SignalSettings s = SignalSettings.of(SignalSettings.DEFAULT_URL, "+15551234567")
                .withAllowedUsers(List.of("A11CE000-0000-4000-8000-000000000002", "+15550000003"));
        assertThat(s.toAccessPolicy().allowedUsers()).containsExactlyInAnyOrder("a11ce000-0000-4000-8000-000000000002", "+15550000003");
        assertThat(s.numbersListed()).containsExactly("+15550000003");
        assertThat(s.toString()).doesNotContain("allowed");
    }
}
