package dev.herald.platforms.ntfy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code platforms.ntfy}'s own rules: ntfy has no sender identity, so access must be opted into, and never by user. */
class NtfySettingsTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.ntfy", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml line 7";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });

    private static NtfySettings with(boolean allowAll, List<String> users) {
        return new NtfySettings(true, "https://ntfy.sh", "herald_phone", null, Secret.of("tk_x"), null, Secret.NONE, "robot", null, 3, false,
                users, allowAll, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    @Test
    void enabled_needsAllowAllUsers_andRefusesAllowedUsers_sayingWhy() {
        assertThatCode(() -> with(true, List.of()).validate(CHECK)).doesNotThrowAnyException();
        assertThatThrownBy(() -> with(false, List.of()).validate(CHECK)).hasMessageContaining("platforms.ntfy.allow_all_users must be true")
                .hasMessageContaining("no sender identity");
        assertThatThrownBy(() -> with(true, List.of("phil")).validate(CHECK)).hasMessageContaining("platforms.ntfy.allowed_users must stay empty");
    }

    @Test
    void theTopic_theBaseUrl_andThePriority_areChecked_andSecretsMasked() {
        assertThatThrownBy(() -> NtfySettings.of("https://ntfy.sh", "a/b", null).validate(CHECK)).hasMessageContaining("platforms.ntfy.topic");
        assertThatThrownBy(() -> NtfySettings.of("ftp://ntfy.sh", "ok", null).validate(CHECK)).hasMessageContaining("platforms.ntfy.base_url");
        assertThatThrownBy(() -> NtfySettings.of("https://ntfy.sh", "ok", null).withLook(null, 9, false).validate(CHECK))
                .hasMessageContaining("platforms.ntfy.priority");
        assertThat(NtfySettings.of("https://ntfy.sh", "ok", "tk_secret").toString()).doesNotContain("tk_secret").contains("token=****");
        assertThat(NtfySettings.defaults().baseUrl()).isEqualTo("https://ntfy.sh");
        assertThat(NtfyApi.header("Grüße")).isEqualTo("=?UTF-8?B?R3LDvMOfZQ==?=");
        assertThat(NtfyApi.header("plain")).isEqualTo("plain");
    }
}
