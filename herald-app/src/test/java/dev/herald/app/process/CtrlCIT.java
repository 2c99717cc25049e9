package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A terminal's Ctrl-C: SIGINT to the whole foreground process group of a supervised {@code herald run} (the
 * supervisor and the gateway; the supervisor also passes it on, as SIGINT). The log says so once, and Herald exits 0.
 */
class CtrlCIT {
    @TempDir
    Path home;

    @Test
    void ctrlC_toTheProcessGroup_logsOneShutdownLine_andExits0() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Files.writeString(home.resolve("config.yaml"), "platforms:\n  api_server:\n    port: " + port + "\n");
        // a process group of its own, as a shell gives a foreground job (the test's JVM is not in it), with SIGINT at its
        // default: a build started in the background may run with SIGINT ignored, which every child would inherit
        ProcessBuilder pb = new ProcessBuilder(List.of("/usr/bin/python3", "-c",
                "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.setsid(); os.execv(sys.argv[1], sys.argv[1:])",
                ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "dev.herald.app.Main", "run",
                "--demo", "--home", home.toString()));
        pb.environment().remove("INVOCATION_ID");
        pb.environment().remove("HERALD_SUPERVISED_CHILD");
        pb.redirectErrorStream(true).redirectOutput(home.resolve("out.log").toFile());
        Process herald = pb.start();
        try {
            Path log = home.resolve("logs/herald.log");
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(log) && Files.readString(log).contains("Herald is ready"));

            int rc = new ProcessBuilder("kill", "-s", "INT", "--", "-" + herald.pid()).inheritIO().start().waitFor(); // the whole group

            assertThat(rc).isZero();
            assertThat(herald.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(herald.exitValue()).isZero();
            List<String> signalLines = Files.readAllLines(log).stream().filter(l -> l.contains(" received")).toList();
            assertThat(signalLines).hasSize(1);
            assertThat(signalLines.getFirst()).contains("INFO  runtime - SIGINT received: stopping");
        } finally {
            herald.descendants().forEach(ProcessHandle::destroyForcibly);
            herald.destroyForcibly();
        }
    }
}
