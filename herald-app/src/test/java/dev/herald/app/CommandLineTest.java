package dev.herald.app;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line as a user sees it: what is printed where, and the exit code. */
class CommandLineTest {
    @TempDir
    Path userHome;

    private CliRun herald(String... args) {
        return CliRun.of(Map.of(), userHome, args);
    }

    private CliRun herald(Map<String, String> env, String... args) {
        return CliRun.of(env, userHome, args);
    }

    @Test
    void help_listsTheCommandsAndExitCodes_andExits0() {
        CliRun run = herald("--help");

        assertThat(run.exit()).isZero();
        assertThat(run.out()).startsWith("Usage: herald").contains("run ").contains("config ")
                .contains("78   configuration error").contains("HERALD_HOME");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void runHelp_describesHomeConfigAndDemo() {
        CliRun run = herald("run", "--help");

        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("--home=DIR").contains("--config=FILE").contains("--demo");
    }

    @Test
    void version_printsTheVersionCommitSchemaAndJava_andExits0() {
        CliRun run = herald("--version");

        assertThat(run.exit()).isZero();
        assertThat(run.out().strip().lines().toList()).hasSize(4).satisfies(lines -> {
            assertThat(lines.get(0)).isEqualTo("herald dev");
            assertThat(lines.get(1)).matches("commit (unknown|[0-9a-f]{7,40}(-dirty)?)");
            assertThat(lines.get(2)).isEqualTo("store schema sqlite v" + dev.herald.store.sqlite.SqliteStorage.schemaVersion()
                    + ", postgresql v" + dev.herald.store.postgres.PostgresStorage.schemaVersion());
            assertThat(lines.get(3)).startsWith("java " + Runtime.version().feature());
        });
    }

    @Test
    void noCommand_printsUsageToStderr_andExits64() {
        CliRun run = herald();

        assertThat(run.exit()).isEqualTo(64);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("a command is needed").contains("Usage: herald");
    }

    @Test
    void unknownOption_exits64WithAHint() {
        CliRun run = herald("run", "--hmoe", "/tmp/x");

        assertThat(run.exit()).isEqualTo(64);
        assertThat(run.err()).contains("herald: Unknown options: '--hmoe'").contains("Run 'herald run --help' for usage.");
    }

    @Test
    void unknownCommand_exits64AndSuggestsTheClosest() {
        CliRun run = herald("confg");

        assertThat(run.exit()).isEqualTo(64);
        assertThat(run.err()).contains("Unmatched argument at index 0: 'confg'").contains("Did you mean: herald config?");
    }

    @Test
    void unknownCommandLikeNoOther_exits64AndListsTheCommands() {
        CliRun run = herald("xyzzy");

        assertThat(run.exit()).isEqualTo(64);
        assertThat(run.err()).contains("Unmatched argument at index 0: 'xyzzy'").contains("Commands: run, status, restart, config");
    }

    @Test
    void configCheck_withoutAFile_printsOkAndTheDefaults() {
        Path home = userHome.resolve("h");

        CliRun run = herald("config", "check", "--home", home.toString());

        assertThat(run.exit()).isZero();
        assertThat(run.out()).startsWith("config OK: " + home.resolve("config.yaml") + " (no such file; built-in defaults)\n")
                .contains("  name: llama3.1\n")
                .contains("    port: 8642\n")
                .contains("  path: " + home.resolve("herald.db") + "\n")
                .contains("note: model.base_url is not set, so herald run answers with the built-in demo model");
        assertThat(run.err()).isEmpty();
        assertThat(home).as("config check creates nothing").doesNotExist();
    }

    @Test
    void configCheck_validFile_printsOkAndTheEffectiveConfigWithSecretsMasked() throws IOException {
        Path home = Files.createDirectories(userHome.resolve("h"));
        Files.writeString(home.resolve("config.yaml"), """
                model:
                  base_url: https://api.openai.com/v1
                  api_key: ${OPENAI_API_KEY}
                  name: gpt-4o-mini
                """);

        CliRun run = herald(Map.of("OPENAI_API_KEY", "sk-very-secret"), "config", "check", "--home", home.toString());

        assertThat(run.exit()).isZero();
        assertThat(run.out()).startsWith("config OK: " + home.resolve("config.yaml") + "\n")
                .contains("  base_url: https://api.openai.com/v1\n")
                .contains("  api_key: ****\n")
                .doesNotContain("sk-very-secret")
                .doesNotContain("demo model");
    }

    @Test
    void configCheck_brokenFile_printsTheOneErrorToStderr_andExits78() throws IOException {
        Path home = Files.createDirectories(userHome.resolve("h"));
        Path file = home.resolve("config.yaml");
        Files.writeString(file, "platforms:\n  api_server:\n    port: 70000\n");

        CliRun run = herald("config", "check", "--home", home.toString());

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("config - " + file + " line 3: platforms.api_server.port must be 1..65535, was 70000\n");
    }

    @Test
    void configCheck_heraldHomeVariable_choosesTheHome_andHomeOptionWins() throws IOException {
        Path fromEnv = Files.createDirectories(userHome.resolve("env-home"));
        Path fromOption = Files.createDirectories(userHome.resolve("option-home"));
        Files.writeString(fromEnv.resolve("config.yaml"), "model:\n  name: from-env\n");
        Files.writeString(fromOption.resolve("config.yaml"), "model:\n  name: from-option\n");
        Map<String, String> env = Map.of("HERALD_HOME", fromEnv.toString());

        assertThat(herald(env, "config", "check").out()).contains("name: from-env");
        assertThat(herald(env, "config", "check", "--home", fromOption.toString()).out()).contains("name: from-option");
    }

    @Test
    void configCheck_defaultHome_isDotHeraldInTheUserHome() {
        CliRun run = herald("config", "check");

        assertThat(run.out()).startsWith("config OK: " + userHome.resolve(".herald/config.yaml"));
    }

    @Test
    void configCheck_configOption_readsThatFile_andAMissingOneExits78() throws IOException {
        Path file = Files.writeString(userHome.resolve("custom.yaml"), "gateway:\n  busy_input: interrupt\n");

        CliRun ok = herald("config", "check", "--config", file.toString());
        CliRun missing = herald("config", "check", "--config", userHome.resolve("nope.yaml").toString());

        assertThat(ok.exit()).isZero();
        assertThat(ok.out()).startsWith("config OK: " + file + "\n").contains("busy_input: interrupt");
        assertThat(missing.exit()).isEqualTo(78);
        assertThat(missing.err()).contains("nope.yaml: no such file (given with --config)");
    }

    @Test
    void configReference_printsTheMarkdownTable() {
        CliRun run = herald("config", "reference");

        assertThat(run.exit()).isZero();
        assertThat(run.out()).startsWith("| key | default | meaning |").contains("`platforms.api_server.port`");
    }

    @Test
    void run_brokenConfig_exits78_andCreatesNothing() throws IOException {
        Path home = userHome.resolve("fresh");
        Path file = Files.writeString(userHome.resolve("bad.yaml"), "gateway:\n  busy_input: sometimes\n");

        CliRun run = herald("run", "--home", home.toString(), "--config", file.toString());

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).isEqualTo("config - " + file + " line 2: gateway.busy_input must be one of queue, interrupt, steer, was \"sometimes\"\n");
        assertThat(home).doesNotExist();
    }

    @Test
    void run_badLogLevelVariable_exits78NamingIt() {
        CliRun run = herald(Map.of("HERALD_LOG_LEVEL", "loud"), "run", "--home", userHome.resolve("h").toString());

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).contains("environment variable HERALD_LOG_LEVEL must be one of trace, debug, info, warn, error, was \"loud\"");
    }

    /**
     * Everything before the runtime (home 700, log file, effective config logged once and masked) is what this proves;
     * the runtime then stops on a port another program holds, a fatal error: exit 78 and one line in the log.
     */
    @Test
    void run_createsHomeWithMode700_logsTheMaskedConfigOnce_thenHandsOverToTheRuntime() throws IOException {
        Path home = userHome.resolve("new-home");
        Files.createDirectories(userHome.resolve("cfg"));
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Path file = Files.writeString(userHome.resolve("cfg/config.yaml"),
                    "model:\n  api_key: sk-do-not-log\nplatforms:\n  api_server:\n    port: " + taken.getLocalPort() + "\n");

            CliRun run = herald("run", "--foreground", "--home", home.toString(), "--config", file.toString());

            assertThat(run.exit()).isEqualTo(78);
            assertThat(Files.getPosixFilePermissions(home)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
            Path log = home.resolve("logs/herald.log");
            String logged = Files.readString(log);
            // one line at INFO (the full printout is at DEBUG and in `herald config check`)
            assertThat(logged).containsPattern("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  config - effective configuration from " + file
                            + ": model: the built-in demo model; api_server 127.0.0.1:" + taken.getLocalPort() + " \\(no key\\); [^\n]*; logging text\n")
                    .doesNotContain("sk-do-not-log");
            assertThat(logged).as("the runtime got the configuration and stopped on the port it names")
                    .contains("ERROR web - cannot listen on 127.0.0.1:" + taken.getLocalPort()).doesNotContain("\tat ");
            assertThat(logged.split("effective configuration", -1)).hasSize(2);
        }
    }

    /** The store is claimed before anything is logged; a database in a place that cannot hold one is one line and 78. */
    @Test
    void run_storeWhereNoFileCanBeCreated_exits78WithOneLineNamingIt() throws IOException {
        Path home = userHome.resolve("h2");
        Path blocked = Files.writeString(userHome.resolve("not-a-folder"), "x");
        Files.createDirectories(home);
        Files.writeString(home.resolve("config.yaml"), "model:\n  api_key: sk-do-not-log\nstore:\n  path: " + blocked.resolve("herald.db") + "\n");

        CliRun run = herald("run", "--foreground", "--home", home.toString());

        assertThat(run.exit()).isEqualTo(78);
        assertThat(run.err()).startsWith("store - the lock file " + blocked.resolve("herald.db-lock") + " could not be created or locked; check"
                + " the permissions of " + blocked).endsWith("\n").hasLineCount(1).doesNotContain("sk-do-not-log");
        assertThat(home.resolve("logs")).doesNotExist();
    }
}
