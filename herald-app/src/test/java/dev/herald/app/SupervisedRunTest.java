package dev.herald.app;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The supervising launcher's own reading of {@code herald run}: it takes only the plain command lines, and for those it finds
 * the same home as the parser the gateway child runs (so a handover's files are looked for where the child writes them).
 */
class SupervisedRunTest {
    private static final Path USER = Path.of("/home/u");
    private static final Map<String, String> ENV = Map.of("HERALD_HOME", "/srv/herald");

    private static Optional<Path> launcherHome(Map<String, String> env, String... args) {
        return SupervisedRun.home(args, env, USER);
    }

    /** The home {@code herald run ARGS} resolves through the command-line parser, as the gateway child does. */
    private static Path parsedHome(Map<String, String> env, String... args) {
        var cli = new CliEnvironment(env, USER, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        CommandLine.ParseResult parsed = Main.commandLine(cli).parseArgs(args);
        RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
        return run.where.home(cli);
    }

    @Test
    void plainRunCommandLines_areSupervisedHere_withTheHomeTheParserFinds() {
        List<String[]> plain = List.of(
                new String[] {"run"},
                new String[] {"run", "--demo"},
                new String[] {"run", "--home", "/opt/h"},
                new String[] {"run", "--home=/opt/h", "--config", "/etc/herald/config.yaml"},
                new String[] {"run", "--config=/c.yaml", "--demo", "--home", "rel/h"},
                new String[] {"run", "--home", "~/h"});
        for (Map<String, String> env : List.of(ENV, Map.<String, String>of())) {
            for (String[] args : plain) {
                assertThat(launcherHome(env, args)).as(String.join(" ", args) + " with " + env)
                        .contains(parsedHome(env, args));
            }
        }
        assertThat(launcherHome(ENV, "run")).contains(Path.of("/srv/herald"));
        assertThat(launcherHome(Map.of(), "run")).contains(Path.of("/home/u/.herald"));
    }

    @Test
    void anythingElse_isLeftToTheParser() {
        for (String[] args : List.of(
                new String[] {},
                new String[] {"status"},
                new String[] {"config", "check"},
                new String[] {"run", "--foreground"},
                new String[] {"run", "--help"},
                new String[] {"run", "-h"},
                new String[] {"run", "--home"},
                new String[] {"run", "--home", "--demo"},
                new String[] {"run", "--home", ""},
                new String[] {"run", "--home", "/a", "--home", "/b"},
                new String[] {"run", "--demo", "--demo"},
                new String[] {"run", "--demo=true"},
                new String[] {"run", "--bogus"},
                new String[] {"run", "extra"},
                new String[] {"run", "--home", "/a\u0000b"})) {
            assertThat(launcherHome(ENV, args)).as(String.join(" ", args)).isEmpty();
        }
    }

    @Test
    void underAServiceManager_orAsTheSupervisorsChild_theGatewayRunsInThisProcess() {
        assertThat(launcherHome(Map.of("INVOCATION_ID", "abc"), "run")).isEmpty();
        assertThat(launcherHome(Map.of("HERALD_SUPERVISED_CHILD", "1"), "run")).isEmpty();
    }
}
