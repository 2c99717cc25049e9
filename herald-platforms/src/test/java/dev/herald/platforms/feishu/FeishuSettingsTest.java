package dev.herald.platforms.feishu;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code platforms.feishu}'s own rules: what an operator sees for a missing key, a wrong domain, users named wrongly. */
class FeishuSettingsTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.feishu", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml line 3";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });

    private static FeishuSettings with(String domain, List<String> users) {
        return new FeishuSettings(true, FeishuSettings.WEBHOOK, "cli_a5f3c2e1b0d94e7f", Secret.of("secret"), Secret.of("token"), Secret.NONE, domain, null, true, true,
                users, false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    @Test
    void enabled_needsTheAppIdSecretAndToken_theEncryptKeyIsOptional_andADisabledSectionNeedsNone() {
        assertThatThrownBy(() -> FeishuSettings.of(FeishuSettings.FEISHU_BASE, "", "s", "t", null).validate(CHECK))
                .hasMessageContaining("platforms.feishu.app_id is required");
        assertThatThrownBy(() -> FeishuSettings.of(FeishuSettings.FEISHU_BASE, "cli_a5f3c2e1b0d94e7f", "", "t", null).validate(CHECK))
                .hasMessageContaining("platforms.feishu.app_secret is required");
        assertThatThrownBy(() -> FeishuSettings.of(FeishuSettings.FEISHU_BASE, "cli_a5f3c2e1b0d94e7f", "s", "", null).validate(CHECK))
                .hasMessageContaining("platforms.feishu.verification_token is required");
        assertThatCode(() -> FeishuSettings.of(FeishuSettings.FEISHU_BASE, "cli_a5f3c2e1b0d94e7f", "s", "t", null).validate(CHECK))
                .doesNotThrowAnyException();
        assertThatCode(() -> FeishuSettings.defaults().validate(CHECK)).doesNotThrowAnyException();
    }

    @Test
    void theDomainIsFeishuOrLark_andUsersAreOpenIds() {
        assertThatCode(() -> with("lark", List.of("ou_7d8a6e6df7621556ce0d21922b676706", "*")).validate(CHECK)).doesNotThrowAnyException();
        assertThatThrownBy(() -> with("dingtalk", List.of()).validate(CHECK)).hasMessageContaining("platforms.feishu.domain must be feishu or lark");
        assertThatThrownBy(() -> with("feishu", List.of("alice")).validate(CHECK)).hasMessageContaining("platforms.feishu.allowed_users must be open_ids");
    }

    @Test
    void theModeIsWebsocketByDefault_needsNoVerificationToken_andAnUnknownModeIsRefused() {
        FeishuSettings ws = FeishuSettings.of(FeishuSettings.FEISHU_BASE, "cli_a5f3c2e1b0d94e7f", "s", "", null).withMode("websocket");
        org.assertj.core.api.Assertions.assertThat(FeishuSettings.defaults().mode()).isEqualTo("websocket");
        assertThatCode(() -> ws.validate(CHECK)).doesNotThrowAnyException();
        assertThatThrownBy(() -> ws.withMode("longpoll").validate(CHECK)).hasMessageContaining("platforms.feishu.mode must be websocket or webhook");
    }
}
