package dev.herald.app.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which JVM gets which options when {@code bin/herald run} starts Herald as a user does: a supervising run is a small
 * launcher JVM (-Xmx16m) with the gateway in a child JVM that gets {@code HERALD_JAVA_OPTS}; in the foreground the one
 * JVM gets them. Read from {@code /proc/<pid>/cmdline} of the real processes (Linux).
 */
class LauncherJvmOptionsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration READY = Duration.ofSeconds(120);
    private static final String MARKER = "-Dherald.it.marker=launcher-options";

    @TempDir
    Path home;
    private Process herald;

    @AfterEach
    void stop() {
        if (herald != null) {
            herald.descendants().forEach(ProcessHandle::destroyForcibly);
            herald.destroyForcibly();
        }
    }

    @Test
    void run_supervised_theLauncherJvmIsSmallAndHeraldJavaOptsReachTheGatewayJvm() throws Exception {
        start(List.of(), Map.of("HERALD_JAVA_OPTS", MARKER + " -Xmx300m"));
        long gateway = awaitGateway();

        List<String> launcherArgs = cmdline(herald.pid());
        List<String> gatewayArgs = cmdline(gateway);
        assertThat(gateway).as("the gateway runs in a child process").isNotEqualTo(herald.pid());
        assertThat(launcherArgs).contains("-Xmx16m", "-XX:+UseSerialGC").doesNotContain(MARKER);
        assertThat(gatewayArgs).as("the gateway's defaults, then HERALD_JAVA_OPTS (the JVM takes the last -Xmx)")
                .contains("-XX:+UseSerialGC", MARKER, "-Xmx300m", "--foreground").doesNotContain("-Xmx16m");
        assertThat(gatewayArgs.indexOf("-Xmx300m")).isGreaterThan(gatewayArgs.indexOf("-Xmx1g"));
        assertThat(Files.readString(Path.of("/proc/" + gateway + "/environ")))
                .as("the gateway's own child processes do not inherit the options meant for it").doesNotContain("HERALD_CHILD_JAVA_OPTS");

        assertThat(terminate()).as("SIGTERM drains and exits 0; output:\n%s", output()).isZero();
    }

    @Test
    void run_foreground_heraldJavaOptsReachTheOneJvm() throws Exception {
        start(List.of("--foreground"), Map.of("HERALD_JAVA_OPTS", MARKER));
        long gateway = awaitGateway();

        assertThat(gateway).as("one process: the gateway is the launched JVM").isEqualTo(herald.pid());
        assertThat(cmdline(gateway)).contains("-XX:+UseSerialGC", MARKER).doesNotContain("-Xmx16m");

        assertThat(terminate()).as("output:\n%s", output()).isZero();
    }

    @Test
    void run_supervisedWithABrokenConfig_saysWhyOnce_andExits78WithoutRestarting() throws Exception {
        Files.writeString(home.resolve("config.yaml"), "platforms:\n  api_server:\n    port: 0\n");
        start(List.of(), Map.of());

        assertThat(herald.waitFor(READY.toSeconds(), TimeUnit.SECONDS)).as("exits; output:\n%s", output()).isTrue();
        String out = output();
        assertThat(herald.exitValue()).as(out).isEqualTo(78);
        assertThat(out).contains("platforms.api_server.port must be 1..65535, was 0").doesNotContain("\tat ")
                .as("the gateway child reports it; the small launcher does not read the configuration, and does not retry")
                .contains("exited 78 (a configuration or environment error, explained above); not restarting it");
        assertThat(out.split("port must be 1\\.\\.65535", -1)).as("said once: no second gateway was started").hasSize(2);
    }

    @Test
    void run_fromACheckout_makesTheStartUpCacheOnce_andOnlyTheGatewayJvmMapsIt() throws Exception {
        Path cache = home.resolve("cache").resolve("herald.aot");
        Files.createDirectories(cache.getParent());
        Map<String, String> aot = Map.of("HERALD_AOT", "1", "HERALD_AOT_CACHE", cache.toString());

        start(List.of(), aot);
        long gateway = awaitGateway();

        assertThat(output()).contains("herald: preparing the start-up cache for this build");
        assertThat(cache).as("output:\n%s", output()).isRegularFile();
        assertThat(cmdline(gateway)).contains("-XX:AOTCache=" + cache);
        assertThat(Files.readString(Path.of("/proc/" + gateway + "/maps"))).as("the gateway JVM runs on the cache")
                .contains(cache.toString());
        assertThat(cmdline(herald.pid())).as("the launcher is too small to profit from the gateway's cache")
                .noneMatch(a -> a.startsWith("-XX:AOTCache"));
        assertThat(terminate()).as("output:\n%s", output()).isZero();
        long madeAt = Files.getLastModifiedTime(cache).toMillis();

        start(List.of("--foreground"), aot);
        long again = awaitGateway(gateway);

        assertThat(output()).as("made once per build").doesNotContain("preparing the start-up cache");
        assertThat(Files.getLastModifiedTime(cache).toMillis()).isEqualTo(madeAt);
        assertThat(Files.readString(Path.of("/proc/" + again + "/maps"))).contains(cache.toString());
        assertThat(terminate()).as("output:\n%s", output()).isZero();
    }

    private void start(List<String> extra, Map<String, String> env) throws IOException {
        if (!Files.exists(home.resolve("config.yaml"))) {
            Files.writeString(home.resolve("config.yaml"), "platforms:\n  api_server:\n    host: 127.0.0.1\n    port: " + freePort() + "\n");
        }
        Path root = Scripts.repositoryRoot();
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", root.resolve("bin/herald").toString(), "run", "--demo",
                "--home", home.toString()));
        cmd.addAll(extra);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(home.resolve("out.log").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        for (String v : List.of("INVOCATION_ID", "HERALD_SUPERVISED_CHILD", "HERALD_SUPERVISOR_PID", "HERALD_CHILD_JAVA_OPTS",
                "HERALD_JAVA_OPTS", "HERALD_LAUNCHER_JAVA_OPTS", "HERALD_HOME", "HERALD_CONFIG", "HERALD_AOT_CACHE")) {
            pb.environment().remove(v);
        }
        pb.environment().put("HERALD_AOT", "0"); // no start-up cache unless a test asks for one (its training takes ~10 s)
        pb.environment().putAll(env);
        herald = pb.start();
    }

    private long awaitGateway() throws Exception {
        return awaitGateway(-1);
    }

    /** Waits until the gateway's status file says running with a pid other than {@code notPid}; returns the gateway's pid. */
    private long awaitGateway(long notPid) throws Exception {
        long deadline = System.nanoTime() + READY.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                var state = JSON.readTree(Files.readString(home.resolve("gateway_state.json")));
                if ("running".equals(state.path("state").asText()) && state.path("pid").asLong() != notPid) {
                    return state.path("pid").asLong();
                }
            } catch (IOException | RuntimeException notYet) {
                // not written yet
            }
            if (!herald.isAlive()) {
                throw new AssertionError("herald exited " + herald.exitValue() + " before it ran; output:\n" + output());
            }
            Thread.sleep(50);
        }
        throw new AssertionError("herald did not run within " + READY.toSeconds() + " s; output:\n" + output());
    }

    private int terminate() throws Exception {
        new ProcessBuilder("kill", "-TERM", Long.toString(herald.pid())).inheritIO().start().waitFor();
        if (!herald.waitFor(90, TimeUnit.SECONDS)) {
            throw new AssertionError("herald did not stop within 90 s after SIGTERM; output:\n" + output());
        }
        return herald.exitValue();
    }

    private static List<String> cmdline(long pid) throws IOException {
        String raw = new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8);
        return Arrays.asList(raw.split("\0"));
    }

    private String output() throws IOException {
        return Files.readString(home.resolve("out.log"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
