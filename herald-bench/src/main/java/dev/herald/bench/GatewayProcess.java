package dev.herald.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
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
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code herald run} on a fresh temporary home, as a user starts it: the launcher (by default the
 * checkout's {@code bin/herald}) with {@code run --home <temp>}, supervised unless told otherwise, SQLite
 * with the shipped {@code synchronous=FULL}, the API on a free loopback port and the model at the benchmark's
 * instant model. Its output goes to {@code out.log} in the home. {@link #close()} stops it (SIGTERM, then
 * SIGKILL to the whole tree after the drain bound) and deletes the home; it is safe to call twice, from a
 * shutdown hook included.
 */
final class GatewayProcess implements AutoCloseable {
    private static final Duration READY_BOUND = Duration.ofSeconds(120);
    private static final Duration STOP_BOUND = Duration.ofSeconds(90);
    private static final Pattern PID = Pattern.compile("\"pid\"\\s*:\\s*(\\d+)");

    /** How the gateway became ready: wall time from the launcher's start to {@code /health/ready} 200, and the tree then. */
    record Ready(Duration elapsed, ProcessTree.Reading tree) {
    }

    private final Path home;
    private final int port;
    private final Process process;
    private final long startedAt;
    private final ProcessTree tree;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private volatile boolean closed;

    private GatewayProcess(Path home, int port, Process process, long startedAt) {
        this.home = home;
        this.port = port;
        this.process = process;
        this.startedAt = startedAt;
        this.tree = new ProcessTree(process.toHandle());
    }

    /**
     * Writes the configuration into a new temporary home under {@code parent} and starts {@code launcher run --home}
     * with {@code extraArgs} (e.g. {@code --foreground}).
     */
    static GatewayProcess start(List<String> launcher, Path parent, String modelUrl, List<String> extraArgs) throws IOException {
        Path home = Files.createTempDirectory(parent, "herald-bench-gateway-");
        int port = freePort();
        Files.writeString(home.resolve("config.yaml"), config(modelUrl, port));
        List<String> cmd = new ArrayList<>(launcher);
        cmd.addAll(List.of("run", "--home", home.toString()));
        cmd.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(home.resolve("out.log").toFile());
        Map<String, String> env = pb.environment();
        // run as a user would from a terminal: supervised, not as a systemd unit or a supervisor's child
        env.remove("INVOCATION_ID");
        env.remove("HERALD_SUPERVISED_CHILD");
        env.remove("HERALD_SUPERVISOR_PID");
        env.remove("HERALD_HOME");
        long t0 = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            Args.deleteTree(home);
            throw new IOException("bench - cannot start " + String.join(" ", launcher) + ": " + e.getMessage(), e);
        }
        return new GatewayProcess(home, port, p, t0);
    }

    /** The configuration: the instant model, the API on {@code port}; everything else as shipped. */
    static String config(String modelUrl, int port) {
        return """
                # written by bin/bench-gateway: an instant model and the API on loopback; everything else as shipped
                model:
                  base_url: %s
                  name: bench-model
                  context_tokens: 131072          # no compression inside a 1,000-turn conversation
                platforms:
                  api_server:
                    host: 127.0.0.1
                    port: %d
                    max_connections_per_address: 4096   # every benchmark client connects from 127.0.0.1
                """.formatted(modelUrl, port);
    }

    /** Waits until {@code GET /health/ready} answers 200; fails with the end of the output if the process exits first. */
    Ready awaitReady() throws InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(uri("/health/ready")).timeout(Duration.ofSeconds(2)).GET().build();
        long deadline = startedAt + READY_BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    Duration elapsed = Duration.ofNanos(System.nanoTime() - startedAt);
                    return new Ready(elapsed, tree.read());
                }
            } catch (ConnectException notListening) {
                // not listening yet
            } catch (IOException e) {
                // a reset while starting: try again
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("bench - herald exited " + process.exitValue() + " before it was ready; its output:\n" + tail());
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("bench - herald was not ready within " + READY_BOUND.toSeconds() + " s; its output:\n" + tail());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    Path home() {
        return home;
    }

    ProcessTree.Reading read() {
        return tree.read();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The gateway JVM's pid: the one {@code gateway.pid} names (the supervisor's child), else the launched process. */
    long gatewayPid() {
        try {
            Matcher m = PID.matcher(Files.readString(home.resolve("gateway.pid")));
            if (m.find()) {
                return Long.parseLong(m.group(1));
            }
        } catch (IOException | RuntimeException e) {
            // not written (yet): the launched process is the gateway
        }
        return process.pid();
    }

    /** The {@code store - opened ...} line of the gateway's log, which names the SQLite synchronous mode; empty if absent. */
    String storeLine() {
        for (Path log : List.of(home.resolve("logs/herald.log"), home.resolve("out.log"))) {
            try {
                for (String line : Files.readAllLines(log)) {
                    if (line.contains("store - opened")) {
                        return line.substring(line.indexOf("store - opened"));
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                // no such log
            }
        }
        return "";
    }

    /** The last lines of the process output and the log, for an error message. */
    String tail() {
        StringBuilder sb = new StringBuilder();
        for (Path log : List.of(home.resolve("out.log"), home.resolve("logs/herald.log"))) {
            try {
                List<String> lines = Files.readAllLines(log);
                sb.append("---- ").append(home.relativize(log)).append('\n');
                lines.subList(Math.max(0, lines.size() - 30), lines.size()).forEach(l -> sb.append(l).append('\n'));
            } catch (IOException | UncheckedIOException e) {
                // not written
            }
        }
        return sb.toString();
    }

    /** Runs {@code jcmd <gateway pid> args...} and returns its output; fails when jcmd does. */
    String jcmd(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(gatewayPid())));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("bench - " + String.join(" ", cmd) + " failed: " + out.strip());
        }
        return out;
    }

    /** SIGTERM, then waits for the drain; returns how long the stop took, or empty if it had to be killed. */
    OptionalLong stop() throws InterruptedException {
        if (!process.isAlive()) {
            return OptionalLong.of(0);
        }
        long t0 = System.nanoTime();
        process.destroy();
        if (process.waitFor(STOP_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            return OptionalLong.of((System.nanoTime() - t0) / 1_000_000);
        }
        kill();
        return OptionalLong.empty();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            kill();
            try {
                Args.deleteTree(home);
            } catch (IOException | UncheckedIOException e) {
                System.err.println("bench - could not delete " + home + ": " + e.getMessage() + "; delete it by hand");
            }
        }
    }

    private void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        // a gateway orphaned by a launcher that died: only a process whose command line names this home is ours
        ProcessHandle.of(gatewayPid()).filter(p -> p.info().commandLine().orElse("").contains(home.toString()))
                .ifPresent(ProcessHandle::destroyForcibly);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
