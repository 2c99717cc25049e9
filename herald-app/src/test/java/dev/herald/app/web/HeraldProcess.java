package dev.herald.app.web;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code herald run --foreground} as a child JVM on this test's class path, for tests that need a real
 * process: signals, exit codes, a new pid after a restart. Output goes to a file next to the home.
 */
final class HeraldProcess implements AutoCloseable {
    private final Process process;
    private final Path log;
    private final int port;

    private HeraldProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** Starts Herald on {@code home} (its config.yaml must set the port) and waits until /health/ready answers 200. */
    static HeraldProcess start(Path home, int port, Path log) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xshare:auto", "-cp", classpath,
                "dev.herald.app.Main", "run", "--foreground", "--home", home.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().remove("INVOCATION_ID");
        HeraldProcess p = new HeraldProcess(pb.start(), log, port);
        p.awaitReady(Duration.ofSeconds(60));
        return p;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    long pid() {
        return process.pid();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    private void awaitReady(Duration max) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("herald exited with " + process.exitValue() + " before it was ready; log:\n" + logText());
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(baseUrl() + "/health/ready")).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("herald was not ready within " + max.toSeconds() + " s; log:\n" + logText());
    }

    /** Sends a signal by name (USR1, TERM). */
    void signal(String name) throws IOException, InterruptedException {
        // the shell's built-in kill, so no procps package is needed
        Process kill = new ProcessBuilder("sh", "-c", "kill -" + name + " " + process.pid()).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + name + " " + process.pid() + " failed");
        }
    }

    int awaitExit(Duration max) throws InterruptedException {
        if (!process.waitFor(max.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("herald did not exit within " + max.toSeconds() + " s; log:\n" + logText());
        }
        return process.exitValue();
    }

    String logText() {
        try {
            return Files.exists(log) ? Files.readString(log) : "<no log>";
        } catch (IOException e) {
            return "<log unreadable: " + e + ">";
        }
    }

    @Override
    public void close() throws InterruptedException, IOException {
        if (process.isAlive()) {
            signal("TERM");
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
