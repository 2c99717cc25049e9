package dev.herald.agent.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Interrupt;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell tool: workspace, environment, exit codes, output cap and timeout. */
class ShellToolTest {
    @TempDir
    Path root;

    private ToolResult run(ToolSettings settings, String command) throws Exception {
        Path workspace = root.resolve("ws");
        return new ShellTool(settings).execute(Args.JSON.createObjectNode().put("command", command),
                new ToolContext("s", "scope", "p", workspace, new Interrupt()));
    }

    @Test
    void execute_runsInTheWorkspaceWithHomeThereAndReportsTheExitCode() throws Exception {
        ToolResult result = run(ToolSettings.defaults(root), "pwd; echo HOME=$HOME; exit 3");

        assertThat(result.ok()).isTrue();
        assertThat(result.text()).startsWith("exit code 3 (").contains(root.resolve("ws") + "\nHOME=" + root.resolve("ws"));
    }

    @Test
    void execute_doesNotPassHeraldsEnvironment() throws Exception {
        Set<String> passed = Set.of("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "TMPDIR", "HOME", "TERM",
                "PWD", "OLDPWD", "SHLVL", "_");
        List<String> hidden = System.getenv().keySet().stream().filter(n -> !passed.contains(n) && n.matches("[A-Za-z_][A-Za-z0-9_]*"))
                .limit(5).toList();

        ToolResult result = run(ToolSettings.defaults(root), "env | cut -d= -f1 | sort");

        assertThat(hidden).isNotEmpty();
        assertThat(result.text().lines().skip(1).toList()).doesNotContainAnyElementsOf(hidden).contains("PATH", "HOME", "TERM");
    }

    @Test
    void execute_longOutput_keepsHeadAndTailWithinTheLimit() throws Exception {
        ToolSettings settings = new ToolSettings(null, null, root, null, 1_000, null, ToolSettings.DEFAULT_HTTP_MAX_BYTES);

        ToolResult result = run(settings, "seq 1 20000");

        assertThat(result.text()).contains("\n1\n2\n3\n").contains("bytes omitted]").endsWith("19999\n20000\n");
        assertThat(result.text().length()).isLessThan(1_200);
    }

    @Test
    void execute_pastTheTimeout_killsTheCommandAndSaysSo() throws Exception {
        long start = System.nanoTime();

        ToolResult result = run(ToolSettings.defaults(root).withShellTimeout(Duration.ofSeconds(1)), "echo begun; sleep 20");

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);
        assertThat(result.status()).isEqualTo(ToolResult.Status.ERROR);
        assertThat(result.text()).startsWith("Error: the command timed out after 1,000 ms and was killed (").contains("begun");
    }

    @Test
    void execute_timeoutArgumentCanOnlyShortenTheLimit() throws Exception {
        ToolResult result = new ShellTool(ToolSettings.defaults(root).withShellTimeout(Duration.ofSeconds(1))).execute(
                Args.JSON.createObjectNode().put("command", "sleep 5").put("timeout_seconds", 600),
                new ToolContext("s", "scope", "p", root, new Interrupt()));

        assertThat(result.text()).startsWith("Error: the command timed out after 1,000 ms");
        assertThat(Files.exists(root)).isTrue();
    }
}
