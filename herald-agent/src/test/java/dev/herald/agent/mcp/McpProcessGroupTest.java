package dev.herald.agent.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stdio MCP server runs in a process group (and session) of its own, so the Ctrl-C a terminal sends to its
 * foreground process group reaches Herald alone; Herald stops the server itself when it closes.
 */
class McpProcessGroupTest {
    @TempDir
    Path state;

    /** Fields 5 and 6 of /proc/PID/stat: the process group and the session. */
    private static long[] groupAndSession(String pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", pid, "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[2]), Long.parseLong(f[3])};
    }

    @Test
    void stdioServer_runsInItsOwnProcessGroup_notHeralds_andStopsWithHerald() throws Exception {
        McpTools mcp = new McpTools(List.of(McpToolsTest.server(state)), McpToolsTest.TEST_BACKOFF).start();
        long pid;
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(state.resolve("pids")));
            pid = Long.parseLong(Files.readAllLines(state.resolve("pids")).getFirst().strip());
            long[] server = groupAndSession(Long.toString(pid));
            long[] herald = groupAndSession("self");

            assertThat(server[0]).as("the server leads its own process group").isEqualTo(pid);
            assertThat(server[1]).as("in its own session").isEqualTo(pid);
            assertThat(server[0]).isNotEqualTo(herald[0]);
        } finally {
            mcp.close();
        }
        long stopped = pid;
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(stopped).map(p -> !p.isAlive()).orElse(true));
    }
}
