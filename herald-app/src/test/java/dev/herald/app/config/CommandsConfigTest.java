package dev.herald.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code commands.users}: which commands users who are not admins may run. */
class CommandsConfigTest {
    @TempDir
    Path home;

    @Test
    void leftOut_usersMayRunEveryCommandButRestartAndSethome() {
        HeraldConfig c = new ConfigFixture(home).config("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                """);

        assertThat(c.commands().users()).contains("new", "sessions", "model", "schedule", "voice", "whoami")
                .doesNotContain("restart", "sethome");
        assertThat(c.commands().tiers().allows("restart", false)).isFalse();
        assertThat(c.commands().tiers().allows("restart", true)).isTrue();
        assertThat(c.commands().tiers().allows("reset", false)).as("an alias follows its command").isTrue();
    }

    @Test
    void aListGrantsExactlyItsCommands_aliasesAndSlashesAccepted() {
        HeraldConfig c = new ConfigFixture(home).config("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                commands:
                  users: [new, /status, set-home, q]
                """);

        var tiers = c.commands().tiers();
        assertThat(tiers.users()).containsExactlyInAnyOrder("new", "status", "sethome", "queue");
        assertThat(tiers.allows("reset", false)).isTrue();
        assertThat(tiers.allows("sethome", false)).isTrue();
        assertThat(tiers.allows("model", false)).isFalse();
        assertThat(tiers.allows("help", false)).as("help and whoami are always open").isTrue();
    }

    @Test
    void anUnknownName_isRefusedWithTheKeyAndTheClosestCommand() {
        assertThat(new ConfigFixture(home).error("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                commands:
                  users: [new, sesions]
                """)).contains("commands.users[1]").contains("is not a command: \"sesions\"").contains("did you mean sessions?");
        assertThat(new ConfigFixture(home).error("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                commands:
                  users: [frobnicate]
                """)).contains("commands.users[0]").contains("known: approve, ")
                .contains(", compress, ").contains(", whoami"); // every command, sorted
    }
}
