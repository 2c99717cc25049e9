package dev.herald.app.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/lib/aot.sh's checkout cache against a fake JDK 25 whose java records how it was started and then fails: a training
 * that fails is tried once per build (not on every start), and the training gateway gets none of the caller's environment.
 * The real training, and a gateway running on its cache, are LauncherJvmOptionsIT's.
 */
class AotScriptTest {
    @TempDir
    Path dir;
    private Path jdk;
    private Path jar;
    private Path cache;
    private Path starts;

    @BeforeEach
    void fakeJdkAndJar() throws IOException {
        jdk = Files.createDirectories(dir.resolve("jdk-25"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.3\"\n");
        starts = dir.resolve("starts.log");
        Path java = Files.createDirectories(jdk.resolve("bin")).resolve("java");
        // one line per start: its environment's names and values, on one line; then it fails as a broken gateway would
        Files.writeString(java, "#!/bin/sh\necho \"start: $(env | sort | tr '\\n' ' ')\" >> '" + starts + "'\n"
                + "echo 'herald - cannot start: broken on purpose' >&2\nexit 1\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        jar = Files.writeString(dir.resolve("herald.jar"), "not really a jar");
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(3600)));
        cache = dir.resolve("herald.aot");
    }

    private Scripts.Result prepare() throws Exception {
        Path root = Scripts.repositoryRoot();
        String script = ". '" + root.resolve("bin/lib/jdk.sh") + "'; . '" + root.resolve("bin/lib/aot.sh") + "'; "
                + "herald_prepare_aot '" + jar + "' '" + cache + "'";
        return Scripts.run(List.of("/bin/bash", "-c", script), dir, Map.of("JAVA_HOME", jdk.toString(), "TMPDIR", dir.toString(),
                "HERALD_API_KEY", "sk-secret-of-the-caller", "HERALD_STORE_URL", "jdbc:postgresql://db.example/prod",
                "JAVA_TOOL_OPTIONS", "-Dcaller=1"), Duration.ofSeconds(60));
    }

    private List<String> startLines() throws IOException {
        return Files.exists(starts) ? Files.readAllLines(starts) : List.of();
    }

    @Test
    void aFailedTraining_saysSo_startsNothingElse_andIsNotRetriedUntilTheJarChanges() throws Exception {
        Scripts.Result first = prepare();

        assertThat(first.exit()).as("Herald still starts, without a cache").isZero();
        assertThat(first.err()).contains("herald: preparing the start-up cache for this build")
                .contains("broken on purpose").contains("trying once more").contains("no start-up cache for this build");
        assertThat(cache).doesNotExist();
        assertThat(startLines()).as("tried once more, then given up").hasSize(2);

        Scripts.Result second = prepare();

        assertThat(second.exit()).isZero();
        assertThat(second.err()).as("a failed training is not tried on every start").isEmpty();
        assertThat(startLines()).hasSize(2);

        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(5))); // a new build
        Scripts.Result third = prepare();

        assertThat(third.err()).contains("preparing the start-up cache");
        assertThat(startLines()).hasSize(4);
    }

    @Test
    void theTrainingGateway_getsNoneOfTheCallersEnvironment_onlyAHomeOfItsOwn() throws Exception {
        prepare();

        String started = startLines().get(0);
        assertThat(started).doesNotContain("sk-secret-of-the-caller").doesNotContain("db.example")
                .doesNotContain("JAVA_TOOL_OPTIONS").doesNotContain("JAVA_HOME");
        assertThat(started).containsPattern("HERALD_HOME=" + java.util.regex.Pattern.quote(dir.toString()) + "/herald-aot\\.\\w+/run/home");
    }
}
