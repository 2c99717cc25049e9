package dev.herald.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One {@code herald run --foreground} of the checkout's launcher on its own home and API port, started again on the
 * same home after a kill or a stop. Its output is appended to {@code log} (outside the home, so a full disk under the
 * home does not swallow it). The node is the gateway JVM itself (the launcher execs java), so kill -9 of the process
 * is a crash of the gateway.
 */
final class SoakNode implements AutoCloseable {
    private static final Duration READY_BOUND = Duration.ofSeconds(180);
    private static final Duration STOP_BOUND = Duration.ofSeconds(60);

    final String name;
    final Path home;
    final int port;
    private final Path launcher;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private volatile Process process;

    private SoakNode(String name, Path launcher, Path home, Path log, int port) {
        this.name = name;
        this.launcher = launcher;
        this.home = home;
        this.log = log;
        this.port = port;
    }

    /**
     * Writes the home's {@code config.yaml}: the model at {@code modelUrl} with {@code idleSeconds} of silence allowed and
     * two retries, the API on a free loopback port, no web chat, a 2 s drain, no tools, then {@code extraYaml}.
     */
    static SoakNode configure(String name, Path launcher, Path home, Path log, String modelUrl, int idleSeconds, String extraYaml)
            throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Files.createDirectories(home);
        Files.writeString(home.resolve("config.yaml"), """
                # written by bin/soak-faults
                model:
                  base_url: %s
                  name: soak-model
                  max_retries: 2
                  idle_timeout_seconds: %d
                  context_tokens: 131072
                platforms:
                  api_server:
                    host: 127.0.0.1
                    port: %d
                    max_connections_per_address: 1024
                  webchat:
                    enabled: false
                gateway:
                  drain_timeout_seconds: 2
                agent:
                  tools: []
                """.formatted(modelUrl, idleSeconds, port) + extraYaml);
        return new SoakNode(name, launcher, home, log, port);
    }

    /** Starts the node and waits until {@code /health/ready} answers 200. */
    SoakNode start() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(List.of(launcher.toString(), "run", "--home", home.toString(), "--foreground"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Map<String, String> env = pb.environment();
        env.remove("INVOCATION_ID");
        env.remove("HERALD_SUPERVISED_CHILD");
        env.remove("HERALD_SUPERVISOR_PID");
        env.remove("HERALD_HOME");
        process = pb.start();
        long deadline = System.nanoTime() + READY_BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            if (ready().status() == 200) {
                return this;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("soak - " + name + " exited " + process.exitValue() + " before it was ready; see " + log);
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("soak - " + name + " was not ready within " + READY_BOUND.toSeconds() + " s; see " + log);
    }

    /** What {@code GET /health/ready} says now: its status and body; status 0 when nothing answered. */
    record Readiness(int status, String body) {
    }

    Readiness ready() {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/health/ready")).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Readiness(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Readiness(0, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Readiness(0, "interrupted");
        }
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    boolean alive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** kill -9 of the gateway. */
    void kill() throws InterruptedException {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            p.waitFor();
        }
    }

    /** SIGTERM: the gateway drains and exits; killed when it has not exited within a minute. */
    void terminate() throws InterruptedException {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        if (!p.waitFor(STOP_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            System.err.println("soak - " + name + " did not stop within " + STOP_BOUND.toSeconds() + " s of SIGTERM; killed");
            kill();
        }
    }

    Path log() {
        return log;
    }

    @Override
    public void close() {
        try {
            terminate();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Process p = process;
            if (p != null) {
                p.destroyForcibly();
            }
        } catch (UncheckedIOException e) {
            System.err.println("soak - could not stop " + name + ": " + e.getMessage());
        }
        http.close();
    }
}
