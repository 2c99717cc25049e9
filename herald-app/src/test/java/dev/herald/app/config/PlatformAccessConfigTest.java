package dev.herald.app.config;

import dev.herald.core.config.UnauthorizedDm;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.Platform;
import dev.herald.platforms.telegram.TelegramSettings;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared access keys of chat platform sections, and the Telegram and Weixin sections' own rules. */
class PlatformAccessConfigTest {
    private static final String TOKEN = "123456789:AAH-secret_part_of_the_token";

    @TempDir
    Path home;

    private ConfigFixture fixture() {
        return new ConfigFixture(home);
    }

    @Test
    void telegramSection_becomesAnAccessPolicyAndAHomeChannel() {
        HeraldConfig c = fixture().write("""
                platforms:
                  telegram:
                    enabled: true
                    token: ${TG}
                    allowed_users: [111, "222"]
                    admins: ["111"]
                    home_channel: {chat_id: "-1001", thread_id: "7", name: Ops}
                    unauthorized_dm: ignore
                auth:
                  allow_all_users: false
                """).load(Map.of("TG", TOKEN)).config();

        TelegramSettings tg = (TelegramSettings) c.platforms().chat().get("telegram").settings();
        assertThat(tg.token().reveal()).contains(TOKEN);
        assertThat(tg.toAccessPolicy().allowedUsers()).isEqualTo(Set.of("111", "222"));
        assertThat(tg.toAccessPolicy().admins()).isEqualTo(Set.of("111"));
        assertThat(tg.pairsUnknownUsers()).isFalse();
        var homeChannel = tg.homeChannel().on(Platform.of("telegram")).orElseThrow();
        assertThat(homeChannel.target().chatId()).isEqualTo("-1001");
        assertThat(homeChannel.target().threadId()).isEqualTo("7");
        assertThat(homeChannel.name()).isEqualTo("Ops");
    }

    @Test
    void telegramToken_comesFromTheEnvironmentAlone_andIsMaskedInThePrintout() {
        LoadedConfig loaded = fixture().write("platforms:\n  telegram:\n    enabled: true\n").load(Map.of("TELEGRAM_BOT_TOKEN", TOKEN));

        assertThat(((TelegramSettings) loaded.config().platforms().chat().get("telegram").settings()).token().reveal()).contains(TOKEN);
        assertThat(loaded.effective()).doesNotContain(TOKEN).contains("token: ****");
    }

    @Test
    void enabledTelegramWithoutAToken_isAnErrorNamingTheKey() {
        String error = fixture().error("platforms:\n  telegram:\n    enabled: true\n");

        assertThat(error).contains("platforms.telegram.token is required when platforms.telegram.enabled is true")
                .contains("@BotFather");
    }

    @Test
    void malformedTelegramToken_isAnErrorThatDoesNotShowIt() {
        String error = fixture().error("platforms:\n  telegram:\n    enabled: true\n    token: not-a-real-token-value\n");

        assertThat(error).contains("platforms.telegram.token does not look like a bot token").doesNotContain("not-a-real-token-value");
    }

    @Test
    void homeChannelWithoutAChatId_isAnError() {
        String error = fixture().error("platforms:\n  weixin:\n    home_channel: {name: Ops}\n");

        assertThat(error).contains("platforms.weixin.home_channel.chat_id is required");
    }

    @Test
    void emptyAllowedUserEntry_isAnError() {
        String error = fixture().error("platforms:\n  telegram:\n    allowed_users: [\"111\", \" \"]\n");

        assertThat(error).contains("platforms.telegram.allowed_users must be a list of user ids");
    }

    @Test
    void enabledWeixinWithoutAToken_isAnError() {
        String error = fixture().error("platforms:\n  weixin:\n    enabled: true\n");

        assertThat(error).contains("platforms.weixin.token is required");
    }

    @Test
    void defaults_pairUnknownDirectMessages_andAllowNobody() {
        HeraldConfig c = HeraldConfig.defaults();

        assertThat(c.platforms().chat().get("telegram").access().pairsUnknownUsers()).isTrue();
        assertThat(c.platforms().chat().get("telegram").access().toAccessPolicy().allowAllUsers()).isFalse();
        assertThat(c.platforms().chat().get("weixin").access().unauthorizedDm()).isEqualTo(UnauthorizedDm.PAIR);
        assertThat(c.auth().allowAllUsers()).isFalse();
    }
}
