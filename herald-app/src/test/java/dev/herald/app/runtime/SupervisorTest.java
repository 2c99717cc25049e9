package dev.herald.app.runtime;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The supervisor's own pieces; its restarts, crashes and handovers are tested on real processes (the process ITs). */
class SupervisorTest {
    @TempDir
    Path dir;

    @Test
    void lines_fillThePlaceholdersInOrder_andLeaveTheRestAsWritten() {
        assertThat(Supervisor.Lines.format("supervisor - gateway {} died (exit {}); starting a new one in {} s", 42L, 137, 4L))
                .isEqualTo("supervisor - gateway 42 died (exit 137); starting a new one in 4 s");
        assertThat(Supervisor.Lines.format("a {} b {}", "x")).isEqualTo("a x b {}");
        assertThat(Supervisor.Lines.format("no placeholder", "x")).isEqualTo("no placeholder");
        assertThat(Supervisor.Lines.format("{}{}", null, "{}")).isEqualTo("null{}");
    }

    @Test
    void aStartUpCacheOlderThanTheJar_isLeftOut_soTheGatewayNeverRunsClassesOfAnOldBuild() throws Exception {
        Path jar = Files.writeString(dir.resolve("herald.jar"), "jar");
        Path cache = Files.writeString(dir.resolve("herald.aot"), "cache");
        Instant built = Instant.parse("2026-12-04T06:00:00Z");
        Files.setLastModifiedTime(jar, FileTime.from(built));
        Files.setLastModifiedTime(cache, FileTime.from(built.plusSeconds(10)));
        List<String> command = List.of("/jdk/bin/java", "--enable-native-access=ALL-UNNAMED", "-XX:AOTCache=" + cache,
                "-XX:+UseSerialGC", "-cp", jar.toString(), "dev.herald.app.Main", "run", "--foreground");

        assertThat(Supervisor.withoutStaleAotCache(command)).as("made after the jar: kept").isEqualTo(command);

        Files.setLastModifiedTime(jar, FileTime.from(built.plusSeconds(60))); // rebuilt while Herald ran
        assertThat(Supervisor.withoutStaleAotCache(command))
                .containsExactly("/jdk/bin/java", "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-cp", jar.toString(),
                        "dev.herald.app.Main", "run", "--foreground");

        Files.setLastModifiedTime(cache, FileTime.from(built.plusSeconds(90))); // a new cache for the new jar
        assertThat(Supervisor.withoutStaleAotCache(command)).isEqualTo(command);

        Files.delete(cache);
        assertThat(Supervisor.withoutStaleAotCache(command)).doesNotContain("-XX:AOTCache=" + cache);
    }

    @Test
    void aCommandWithoutACache_isLeftAsItIs() {
        List<String> command = List.of("/jdk/bin/java", "-cp", dir.resolve("missing.jar").toString(), "dev.herald.app.Main");
        assertThat(Supervisor.withoutStaleAotCache(command)).isSameAs(command);
    }
}
