package dev.herald.app.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** bin/lib/jdk.sh against fake JDK folders: JAVA_HOME when it is 21+, else the newest 21+, else a clear error. */
class JdkSelectionTest {
    @TempDir
    Path jvms;

    private Path fakeJdk(String name, String version, boolean viaReleaseFileOnly) throws IOException {
        Path home = Files.createDirectories(jvms.resolve(name));
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        String script = viaReleaseFileOnly ? "#!/bin/sh\nexit 0\n"
                : "#!/bin/sh\necho 'openjdk version \"" + version + "\" 2025-01-01' >&2\n";
        Files.writeString(java, script);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (viaReleaseFileOnly) {
            Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + version + "\"\n");
        }
        return home;
    }

    /** A PATH with the tools jdk.sh uses and no java, so the machine's own JDKs stay out of the test. */
    private Path toolsWithoutJava() throws IOException {
        Path tools = Files.createDirectories(jvms.resolve("tools"));  // no bin/java inside, so the scan skips it
        for (String tool : List.of("sed", "head", "tail", "sort", "dirname", "readlink")) {
            Path link = tools.resolve(tool);
            if (Files.notExists(link)) {
                Path real = Files.exists(Path.of("/usr/bin", tool)) ? Path.of("/usr/bin", tool) : Path.of("/bin", tool);
                Files.createSymbolicLink(link, real);
            }
        }
        return tools;
    }

    private Scripts.Result select(String javaHome) throws Exception {
        Path jdkSh = Scripts.repositoryRoot().resolve("bin/lib/jdk.sh");
        String script = ". '" + jdkSh + "'; herald_select_jdk && echo \"$JAVA_HOME\"";
        Map<String, String> env = Map.of(
                "HERALD_JVM_DIRS", jvms + "/*",
                "PATH", toolsWithoutJava().toString(),
                "JAVA_HOME", javaHome == null ? "" : javaHome);
        return Scripts.run(List.of("/bin/bash", "-c", script), jvms, env, Duration.ofSeconds(30));
    }

    @Test
    void javaHome21OrNewer_isUsedAsIs() throws Exception {
        Path jdk21 = fakeJdk("jdk-21", "21.0.4", false);
        fakeJdk("jdk-25", "25.0.1", false);

        Scripts.Result r = select(jdk21.toString());

        assertThat(r.exit()).isZero();
        assertThat(r.out().strip()).isEqualTo(jdk21.toString());
    }

    @Test
    void javaHomeTooOld_fallsBackToTheNewestJdk21OrNewer() throws Exception {
        Path jdk17 = fakeJdk("java-17-openjdk", "17.0.15", false);
        fakeJdk("jdk-21", "21.0.9", false);
        Path jdk25 = fakeJdk("temurin-25", "25.0.1", true);
        fakeJdk("jdk-22", "22.0.2", false);

        Scripts.Result r = select(jdk17.toString());

        assertThat(r.exit()).isZero();
        assertThat(r.out().strip()).isEqualTo(jdk25.toString());
    }

    @Test
    void aJdkWithAReleaseFile_isChosenWithoutStartingItsJava() throws Exception {
        Path jdk = fakeJdk("temurin-25", "25.0.3", true);
        Path started = jvms.resolve("java-was-started");
        Files.writeString(jdk.resolve("bin/java"), "#!/bin/sh\n: > '" + started + "'\necho 'openjdk version \"9.0.1\"' >&2\n");

        Scripts.Result r = select(null);

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().strip()).isEqualTo(jdk.toString());
        assertThat(started).as("the version comes from the release file; no JVM is started to ask").doesNotExist();
    }

    @Test
    void noJdk21Anywhere_failsNamingWhatWasFound() throws Exception {
        Path jdk17 = fakeJdk("java-17-openjdk", "17.0.15", false);
        fakeJdk("jdk8", "1.8.0_292", false);

        Scripts.Result r = select(jdk17.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("herald: needs a JDK 21 or newer, and none was found.")
                .contains("found: JAVA_HOME=" + jdk17 + " (17.0.15)")
                .contains("(1.8.0_292)")
                .contains("set JAVA_HOME");
    }
}
