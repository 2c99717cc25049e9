package dev.herald.platforms.line;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code platforms.line}'s own rules: what an operator sees for a missing secret, a user named wrongly, a plain-http public URL. */
class LineSettingsTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.line", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml line 3";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });

    private static LineSettings withUsers(List<String> users) {
        return new LineSettings(true, Secret.of("token"), Secret.of("secret"), null, null, true, 50, null, users, false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    @Test
    void enabled_needsBothSecrets_andADisabledSectionNeedsNone() {
        assertThatThrownBy(() -> LineSettings.of(LineSettings.DEFAULT_API_BASE, LineSettings.DEFAULT_DATA_API_BASE, "", "secret").validate(CHECK))
                .hasMessageContaining("platforms.line.channel_access_token is required");
        assertThatThrownBy(() -> LineSettings.of(LineSettings.DEFAULT_API_BASE, LineSettings.DEFAULT_DATA_API_BASE, "token", "").validate(CHECK))
                .hasMessageContaining("platforms.line.channel_secret is required");
        assertThatCode(() -> LineSettings.defaults().validate(CHECK)).doesNotThrowAnyException();
    }

    @Test
    void users_areLineUserIds_thePublicUrlIsHttps_andTheReplyWindowWithinLinesMinute() {
        assertThatCode(() -> withUsers(List.of("U4af4980629a0d4fa6c25d3d6c5b0e5b7", "*")).validate(CHECK)).doesNotThrowAnyException();
        assertThatThrownBy(() -> withUsers(List.of("@alice")).validate(CHECK)).hasMessageContaining("platforms.line.allowed_users must be LINE user ids");
        LineSettings ok = withUsers(List.of());
        assertThatThrownBy(() -> ok.withPublicUrl("http://herald.example.org").validate(CHECK)).hasMessageContaining("platforms.line.public_url must be an https URL");
        assertThatCode(() -> ok.withPublicUrl("https://herald.example.org/").validate(CHECK)).doesNotThrowAnyException();
        assertThat(ok.withPublicUrl("https://herald.example.org/").publicUrl()).isEqualTo("https://herald.example.org");
        assertThatThrownBy(() -> ok.withReplyWindowSeconds(90).validate(CHECK)).hasMessageContaining("platforms.line.reply_window_seconds must be 0 to 60");
        assertThat(LineSettings.of("https://a", "https://b", "tok-3141", "sec-2718").toString()).doesNotContain("tok-3141").doesNotContain("sec-2718");
    }
}
