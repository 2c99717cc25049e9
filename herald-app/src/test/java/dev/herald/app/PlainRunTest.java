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
 * The common {@code herald run} command lines, read without the command-line parser: only the plain ones are taken, and for
 * those the options are what the parser makes of them (the gateway child and the launcher agree on the home, and a
 * gateway started this way runs with the options the parser would give it).
 */
class PlainRunTest {
    private static final Path USER = Path.of("/home/u");
    private static final Map<String, String> ENV = Map.of("HERALD_HOME", "/srv/herald");

    private static CliEnvironment cli(Map<String, String> env) {
        return new CliEnvironment(env, USER, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    }

    /** {@code herald run ARGS} through the command-line parser, as {@link Main#run} reads it. */
    private static RunCommand parsed(Map<String, String> env, String... args) {
        CommandLine.ParseResult parsed = Main.commandLine(cli(env)).parseArgs(args);
        return (RunCommand) parsed.subcommand().commandSpec().userObject();
    }

    @Test
    void plainRunCommandLines_areReadAsTheParserReadsThem() {
        List<String[]> plain = List.of(
                new String[] {"run"},
                new String[] {"run", "--demo"},
                new String[] {"run", "--foreground"},
                new String[] {"run", "--home", "/opt/h"},
                new String[] {"run", "--home=/opt/h", "--config", "/etc/herald/config.yaml", "--foreground"},
                new String[] {"run", "--config=/c.yaml", "--demo", "--home", "rel/h"},
                new String[] {"run", "--foreground", "--demo", "--config", "rel/c.yaml"},
                new String[] {"run", "--home", "~/h"});
        for (Map<String, String> env : List.of(ENV, Map.<String, String>of(), Map.of("HERALD_CONFIG", "/etc/h.yaml"))) {
            for (String[] args : plain) {
                String what = String.join(" ", args) + " with " + env;
                PlainRun read = PlainRun.parse(args).orElseThrow(() -> new AssertionError(what));
                RunCommand byParser = parsed(env, args);
                var c = cli(env);
                assertThat(read.resolvedHome(c)).as(what).isEqualTo(byParser.where.home(c));
                assertThat(read.demo()).as(what).isEqualTo(byParser.demo);
                assertThat(read.foreground()).as(what).isEqualTo(byParser.foreground);
                assertThat(read.config()).as(what).isEqualTo(byParser.where.config);
            }
        }
        assertThat(PlainRun.parse(new String[] {"run"}).orElseThrow().resolvedHome(cli(ENV))).isEqualTo(Path.of("/srv/herald"));
        assertThat(PlainRun.parse(new String[] {"run"}).orElseThrow().resolvedHome(cli(Map.of())))
                .isEqualTo(Path.of("/home/u/.herald"));
    }

    @Test
    void anythingElse_isLeftToTheParser() {
        for (String[] args : List.of(
                new String[] {},
                new String[] {"status"},
                new String[] {"config", "check"},
                new String[] {"run", "--help"},
                new String[] {"run", "-h"},
                new String[] {"run", "-V"},
                new String[] {"run", "--home"},
                new String[] {"run", "--home", "--demo"},
                new String[] {"run", "--home", ""},
                new String[] {"run", "--home", "/a", "--home", "/b"},
                new String[] {"run", "--config", "/a", "--config=/b"},
                new String[] {"run", "--demo", "--demo"},
                new String[] {"run", "--foreground", "--foreground"},
                new String[] {"run", "--demo=true"},
                new String[] {"run", "--bogus"},
                new String[] {"run", "extra"},
                new String[] {"run", "--home", "/a\u0000b"})) {
            assertThat(PlainRun.parse(args)).as(String.join(" ", args)).isEqualTo(Optional.empty());
        }
    }

    @Test
    void supervises_onlyWithoutForeground_andNotUnderAServiceManagerOrAsTheSupervisorsChild() {
        PlainRun run = PlainRun.parse(new String[] {"run"}).orElseThrow();
        assertThat(run.supervises(Map.of())).isTrue();
        assertThat(run.supervises(Map.of("INVOCATION_ID", "abc"))).isFalse();
        assertThat(run.supervises(Map.of("HERALD_SUPERVISED_CHILD", "1"))).isFalse();
        assertThat(PlainRun.parse(new String[] {"run", "--foreground"}).orElseThrow().supervises(Map.of())).isFalse();
    }
}
