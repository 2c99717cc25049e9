package dev.herald.app.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/test} on a machine that lacks what the tests need: it stops within seconds, before building,
 * naming the missing Debian packages and the command that installs them. Run as an unprivileged user (as root
 * with apt it would install them instead), with a PATH that has a shell and core tools but no Maven or Node.
 */
class BinTestPrerequisitesTest {
    @TempDir
    Path dir;

    private Path tools() throws Exception {
        Path tools = Files.createDirectories(dir.resolve("tools"));
        for (String t : List.of("bash", "dirname", "readlink", "sed", "sort", "head", "tail", "id", "cut", "cat", "env", "uname")) {
            Path real = Path.of("/usr/bin", t);
            if (!Files.isExecutable(real)) {
                real = Path.of("/bin", t);
            }
            Files.createSymbolicLink(tools.resolve(t), real);
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return tools;
    }

    private Scripts.Result binTest(Map<String, String> env) throws Exception {
        Path root = Scripts.repositoryRoot();
        List<String> cmd = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv is needed to run bin/test unprivileged");
            cmd.addAll(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
        }
        cmd.addAll(List.of("/bin/bash", root.resolve("bin/test").toString(), "-o", "-q"));
        return Scripts.run(cmd, dir, env, Duration.ofSeconds(60));
    }

    @Test
    void withoutMavenAndNode_stopsBeforeBuilding_namingThePackagesAndTheCommand() throws Exception {
        Path tools = tools();
        Path browser = Files.writeString(dir.resolve("chromium"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(browser, PosixFilePermissions.fromString("rwxr-xr-x"));
        long started = System.nanoTime();

        Scripts.Result r = binTest(Map.of("PATH", tools.toString(), "JAVA_HOME", System.getProperty("java.home"),
                "HERALD_CHROMIUM", browser.toString(), "HOME", dir.toString()));

        assertThat(r.exit()).isEqualTo(1);
        // then the tools the voice tests and the chat servers need (espeak-ng, ffmpeg, ngircd, ...), none on this PATH
        assertThat(r.err()).contains("test - stopped before building: missing mvn node npm espeak-ng opusenc ffmpeg")
                .contains("(Debian packages: maven nodejs npm espeak-ng opus-tools ffmpeg")
                .contains("sudo apt-get install -y maven nodejs npm espeak-ng opus-tools ffmpeg");
        assertThat(r.out()).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("a check, not a build").isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void withHeraldChromiumNamingNothing_stopsNamingIt() throws Exception {
        Path tools = tools();

        Scripts.Result r = binTest(Map.of("PATH", tools.toString(), "JAVA_HOME", System.getProperty("java.home"),
                "HERALD_CHROMIUM", "/nowhere/chromium", "HOME", dir.toString()));

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("HERALD_CHROMIUM=/nowhere/chromium is not an executable browser");
        assertThat(r.out()).isEmpty();
    }
}
