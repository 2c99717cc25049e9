package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.cluster.NodeIdentity;
import dev.herald.store.sqlite.SqliteStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code herald status} lists the nodes registered on the home's store: the live ones, and the ones that left last. */
class StatusNodesTest {
    @TempDir
    Path userHome;

    @Test
    void status_listsTheStoresNodes_liveWithWhatTheyOwn_andTheOnesThatLeft() throws Exception {
        Path home = userHome.resolve("h");
        Files.createDirectories(home);
        try (SqliteStorage storage = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            storage.nodes().register(new NodeIdentity("node-a", "host-a", 4242, null), Duration.ofSeconds(15), null);
            storage.nodes().register(new NodeIdentity("node-b", "host-b", 77, null), Duration.ofSeconds(15), "node-0");
            storage.nodes().register(new NodeIdentity("node-0", "host-b", 76, null), Duration.ofSeconds(15), null);
            storage.nodes().markGone("node-0", false);
        }

        CliRun run = CliRun.of(Map.of(), userHome, "status", "--home", home.toString());

        assertThat(run.exit()).as("this home's gateway does not run").isEqualTo(3);
        assertThat(run.out()).contains("  nodes: 2 live, 1 gone recently\n")
                .containsPattern("    node-a: running, pid 4242 on host-a, 0 sessions, 0 turns running, heartbeat \\d+ s ago\n")
                .containsPattern("    node-b: running, pid 77 on host-b, 0 sessions, 0 turns running, heartbeat \\d+ s ago; took over from node-0\n")
                .contains("    node-0: gone, pid 76 on host-b\n");
    }

    @Test
    void status_ofAHomeThatNeverRan_createsNoStore() {
        Path home = userHome.resolve("never");

        CliRun run = CliRun.of(Map.of(), userHome, "status", "--home", home.toString());

        assertThat(run.exit()).isEqualTo(3);
        assertThat(run.out()).doesNotContain("nodes:");
        assertThat(home.resolve("herald.db")).doesNotExist();
    }
}
