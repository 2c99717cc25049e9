package dev.herald.core.inbound;

import dev.herald.core.auth.CommandTiers;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The names a platform reads as commands ({@link Commands#NAMES}) cover every command /help lists, and /whoami's. */
class CommandNamesTest {
    @Test
    void everyCommandInHelp_andInWhoami_isAName() {
        Matcher m = Pattern.compile("(?m)(?:^|or )/([a-z-]+)").matcher(Commands.HELP);
        int found = 0;
        while (m.find()) {
            assertThat(Commands.NAMES).as("/help lists /" + m.group(1)).contains(m.group(1));
            found++;
        }
        assertThat(found).isGreaterThan(15);
        assertThat(Commands.NAMES).containsAll(WhoamiCommand.BUILT_IN);
        assertThat(dev.herald.core.platform.CommandNames.ALL).as("/reload-mcp is added by the agent's MCP servers")
                .containsAll(CommandTiers.ADMIN_BY_DEFAULT);
    }

    @Test
    void theKitsList_whatSlackAndMattermostReadAsCommands_isTheGatewaysNamesAndItsAddedCommands() {
        java.util.Set<String> expected = new java.util.HashSet<>(Commands.NAMES);
        expected.addAll(java.util.Set.of("schedule", "voice", "skills", "personality"));
        expected.addAll(java.util.Set.of("context", "reasoning", "reload-mcp"));
        expected.add("memory"); // dev.herald.agent.memory
        expected.add("link"); // dev.herald.web.access.LinkCommand
        expected.addAll(java.util.Set.of("steer", "btw", "bg", "busy")); // dev.herald.core.side
        assertThat(dev.herald.core.platform.CommandNames.ALL).containsExactlyInAnyOrderElementsOf(expected);
    }
}
