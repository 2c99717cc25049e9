package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.plugins.PluginJar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald config check} with plug-in jars in {@code $HERALD_HOME/plugins/}: a good jar's platform is a section
 * of {@code platforms:} bound into its own settings record, checked by that record's rules; a jar that cannot be used
 * stops the check with one line naming it, exit 78.
 */
class PluginJarCheckTest {
    @TempDir
    Path userHome;

    private Path home() throws IOException {
        return Files.createDirectories(userHome.resolve("h"));
    }

    private CliRun check(Path home, String yaml) throws IOException {
        Files.writeString(home.resolve("config.yaml"), yaml);
        return CliRun.of(Map.of(), userHome, "config", "check", "--home", home.toString());
    }

    @Test
    void aPluginJar_configCheck_bindsAndPrintsItsSection() throws IOException {
        Path home = home();
        PluginJar.telnet().writeTo(home.resolve("plugins/telnet.jar"), userHome.resolve("build"));

        CliRun run = check(home, "platforms:\n  telnet:\n    enabled: true\n    port: 7001\n    allow_all_users: true\n");

        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("  telnet:\n    enabled: true\n    port: 7001\n    allowed_users: []\n    allow_all_users: true\n");
    }

    @Test
    void aPluginsBadValue_failsTheCheck_byTheRulesOfItsSettingsRecord() throws IOException {
        Path home = home();
        PluginJar.telnet().writeTo(home.resolve("plugins/telnet.jar"), userHome.resolve("build"));

        CliRun run = check(home, "platforms:\n  telnet:\n    enabled: true\n    port: 70000\n");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).contains("platforms.telnet.port must be a port from 1 to 65535 when platforms.telnet.enabled is true, was 70000");
    }

    @Test
    void anUnknownKeyInAPluginsSection_failsTheCheck_namingTheKnownKeys() throws IOException {
        Path home = home();
        PluginJar.telnet().writeTo(home.resolve("plugins/telnet.jar"), userHome.resolve("build"));

        CliRun run = check(home, "platforms:\n  telnet:\n    enabled: true\n    prot: 7001\n");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).contains("line 4: unknown key platforms.telnet.prot; did you mean platforms.telnet.port?");
    }

    @Test
    void aSectionForAPlatformNoPluginProvides_isAnUnknownKey() throws IOException {
        Path home = home();

        CliRun run = check(home, "platforms:\n  telnet:\n    enabled: true\n");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).contains("line 2: unknown key platforms.telnet (known keys under platforms: api_server, telegram, weixin, "
                + "discord, slack, email, irc, matrix, xmpp, mattermost, whatsapp, signal, waha, teams, sms, line, google_chat, wecom, ntfy, feishu, dingtalk, qqbot, bluebubbles, homeassistant, webhook, webchat)");
    }

    @Test
    void aFileThatIsNotAJar_stopsTheCheck_namingIt() throws IOException {
        Path home = home();
        Path jar = PluginJar.notAJar(home.resolve("plugins/notes.jar"), "just some text");

        CliRun run = check(home, "");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("plugins - " + jar + ": not a jar file").contains("remove it from the plugins folder");
    }

    @Test
    void aJarWithoutAServicesFile_stopsTheCheck_namingIt() throws IOException {
        Path home = home();
        Path jar = PluginJar.telnet().services(null).writeTo(home.resolve("plugins/telnet.jar"), userHome.resolve("build"));

        CliRun run = check(home, "");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).startsWith("plugins - " + jar + ": declares no platform plug-in")
                .contains("META-INF/services/dev.herald.core.platform.PlatformPlugin");
    }

    @Test
    void aJarNamingAMissingClass_stopsTheCheck_namingItAndTheClass() throws IOException {
        Path home = home();
        Path jar = PluginJar.telnet().services("example.telnet.Missing").writeTo(home.resolve("plugins/telnet.jar"), userHome.resolve("build"));

        CliRun run = check(home, "");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).startsWith("plugins - " + jar + ": its plug-in cannot be loaded").contains("example.telnet.Missing");
    }

    @Test
    void aPluginWithABuiltInPlatformsType_stopsTheCheck_namingBoth() throws IOException {
        Path home = home();
        Path jar = PluginJar.telnet().type("telegram").writeTo(home.resolve("plugins/telnet.jar"), userHome.resolve("build"));

        CliRun run = check(home, "");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).startsWith("plugins - " + jar + ": plug-in example.telnet.TelnetPlugin has type telegram, which the plug-in "
                + "dev.herald.platforms.telegram.TelegramPlugin (built in) has already");
    }

    @Test
    void twoJarsWithOneType_stopTheCheck_namingBothJars() throws IOException {
        Path home = home();
        Path first = PluginJar.telnet().writeTo(home.resolve("plugins/a-telnet.jar"), userHome.resolve("build-a"));
        Path second = PluginJar.telnet().writeTo(home.resolve("plugins/b-telnet.jar"), userHome.resolve("build-b"));

        CliRun run = check(home, "");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).startsWith("plugins - " + second + ": plug-in example.telnet.TelnetPlugin has type telnet").contains(first.toString());
    }

    @Test
    void aPluginWithAnInvalidType_stopsTheCheck_namingItAndTheRule() throws IOException {
        Path home = home();
        Path jar = PluginJar.telnet().type("Line-Chat").writeTo(home.resolve("plugins/telnet.jar"), userHome.resolve("build"));

        CliRun run = check(home, "");

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).startsWith("plugins - " + jar + ": plug-in example.telnet.TelnetPlugin has type \"Line-Chat\", which is not a platform id");
    }
}
