package dev.herald.core.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link CommandTiers}: who may run which command. */
class CommandTiersTest {
    @Test
    void theDefault_keepsRestartSethomeAndReloadMcpForAdmins_andLetsUsersRunTheRest() {
        CommandTiers d = CommandTiers.defaults();
        assertThat(d.allows("restart", false)).isFalse();
        assertThat(d.allows("set-home", false)).as("an alias follows its command").isFalse();
        assertThat(d.allows("restart", true)).isTrue();
        assertThat(d.allows("reset", false)).isTrue();
        assertThat(d.allows("personality", false)).isTrue();
        assertThat(d.adminOnly(CommandTiers.KNOWN)).containsExactly("reload-mcp", "restart", "sethome");
        assertThat(CommandTiers.KNOWN).contains("new", "schedule", "voice", "personality").doesNotContain("reset", "q", "models");
    }

    @Test
    void aList_grantsItsCommands_helpAndWhoamiStayOpen() {
        CommandTiers t = new CommandTiers(Set.of("/Status", "q"));
        assertThat(t.users()).containsExactlyInAnyOrder("status", "queue");
        assertThat(t.allows("queue", false)).isTrue();
        assertThat(t.allows("new", false)).isFalse();
        assertThat(t.allows("help", false)).isTrue();
        assertThat(t.allows("whoami", false)).isTrue();
        assertThat(t.adminOnly(List.of("new", "status", "help", "restart"))).containsExactly("new", "restart");
    }
}
