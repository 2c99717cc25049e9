package dev.herald.app.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The launcher as a person runs it, as a real process from another folder. Runs in {@code mvn verify}
 * (failsafe) after the jar is packaged; if the jar is missing or stale, bin/herald builds it first.
 */
class BinHeraldIT {
    @TempDir
    Path elsewhere;

    @Test
    void binHeraldVersion_fromAnyFolder_printsTheVersionFromTheJarManifest() throws Exception {
        Path root = Scripts.repositoryRoot();

        Scripts.Result r = Scripts.run(List.of("bash", root.resolve("bin/herald").toString(), "--version"),
                elsewhere, Map.of(), Duration.ofMinutes(10));

        assertThat(r.exit()).as("stderr: %s", r.err()).isZero();
        List<String> lines = r.out().strip().lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).matches("herald \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
        assertThat(lines.get(1)).startsWith("commit ");
        assertThat(lines.get(2)).startsWith("store schema sqlite v");
        assertThat(lines.get(3)).startsWith("java ");
        assertThat(root.resolve("herald-app/target/herald.jar")).exists();
    }

    @Test
    void binHeraldConfigCheck_brokenConfig_exits78WithTheMessage() throws Exception {
        Path root = Scripts.repositoryRoot();
        Path file = Files.writeString(elsewhere.resolve("config.yaml"), "platforms:\n  api_server:\n    port: 0\n");

        Scripts.Result r = Scripts.run(List.of("bash", root.resolve("bin/herald").toString(), "config", "check",
                "--home", elsewhere.toString()), elsewhere, Map.of(), Duration.ofMinutes(10));

        assertThat(r.exit()).isEqualTo(78);
        assertThat(r.err()).endsWith("config - " + file + " line 3: platforms.api_server.port must be 1..65535, was 0\n");
    }
}
