package dev.herald.app.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A real Herald on a temporary home, run as a child process exactly as {@code herald run} runs: the
 * test's class path, the real main class, signals and exit codes. Supervised (the default) means the
 * process is the supervisor and the gateway runs in its child; foreground means the process is the
 * gateway itself. Output goes to {@code out-<n>.log} in the home, for diagnosis.
 */
final class HeraldProcess implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration READY = Duration.ofSeconds(60);

    final Path home;
    final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Process> started = new ArrayList<>();
    private Process process;

    private HeraldProcess(Path home, int port) {
        this.home = home;
        this.port = port;
    }

    /** Writes {@code config.yaml} for a Herald that talks to {@code modelUrl} and serves the API on a free port. */
    static HeraldProcess configure(Path home, String modelUrl, String gatewayYaml, String extraYaml) throws IOException {
        int port = freePort();
        Files.createDirectories(home);
        String yaml = "model:\n  base_url: " + modelUrl + "\n  name: test-model\n  max_retries: 0\n  idle_timeout_seconds: 120\n"
                + "platforms:\n  api_server:\n    port: " + port + "\n"
                + "gateway:\n" + indent(gatewayYaml)
                + "agent:\n  tools: []\n"
                + (extraYaml == null ? "" : extraYaml);
        Files.writeString(home.resolve("config.yaml"), yaml);
        return new HeraldProcess(home, port);
    }

    /** A node of a cluster on the shared PostgreSQL database {@code dbUrl} (user postgres), with its own home and port. */
    static HeraldProcess configureNode(Path home, String modelUrl, String gatewayYaml, String dbUrl, String nodeId, int leaseSeconds)
            throws IOException {
        String cluster = """
                store:
                  url: %s
                  user: postgres
                cluster:
                  enabled: true
                  node_id: %s
                  lease_seconds: %d
                """.formatted(dbUrl, nodeId, leaseSeconds);
        return configure(home, modelUrl, gatewayYaml, cluster);
    }

    void rewriteConfig(String from, String to) throws IOException {
        Path f = home.resolve("config.yaml");
        Files.writeString(f, Files.readString(f).replace(from, to));
    }

    HeraldProcess start(boolean supervised, Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.herald.app.Main", "run", "--home", home.toString()));
        if (!supervised) {
            cmd.add("--foreground");
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> e = pb.environment();
        e.remove("HERALD_SUPERVISED_CHILD");
        e.remove("INVOCATION_ID");
        e.remove("HERALD_CRASH_AT");
        e.putAll(env);
        Path out = home.resolve("out-" + (started.size() + 1) + ".log");
        pb.redirectErrorStream(true).redirectOutput(out.toFile());
        process = pb.start();
        started.add(process);
        return this;
    }

    HeraldProcess start() throws IOException {
        return start(true, Map.of());
    }

    /** Waits until a gateway process other than {@code notPid} runs and its status says running. */
    long awaitReady(long notPid) throws Exception {
        long deadline = System.nanoTime() + READY.toNanos();
        while (System.nanoTime() < deadline) {
            OptionalLong pid = gatewayPid();
            JsonNode state = state();
            if (pid.isPresent() && pid.getAsLong() != notPid && alive(pid.getAsLong()) && state != null
                    && state.path("pid").asLong() == pid.getAsLong() && "running".equals(state.path("state").asText())) {
                return pid.getAsLong();
            }
            if (!process.isAlive()) {
                throw new AssertionError("herald exited with " + process.exitValue() + " before it was ready; output:\n" + output());
            }
            Thread.sleep(50);
        }
        throw new AssertionError("herald not ready within " + READY.toSeconds() + " s; output:\n" + output());
    }

    long awaitReady() throws Exception {
        return awaitReady(-1);
    }

    OptionalLong gatewayPid() {
        try {
            JsonNode n = JSON.readTree(Files.readString(home.resolve("gateway.pid")));
            return OptionalLong.of(n.path("pid").asLong());
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    JsonNode state() {
        try {
            return JSON.readTree(Files.readString(home.resolve("gateway_state.json")));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Sends one message to a durable API session; completes with the HTTP response. */
    CompletableFuture<HttpResponse<String>> chat(String session, String text) {
        return chat(session, text, null);
    }

    /** Sends one message to a durable API session on behalf of {@code user} (the X-Herald-User header). */
    CompletableFuture<HttpResponse<String>> chat(String session, String text, String user) {
        String body = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":" + quote(text) + "}]}";
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").header("X-Herald-Session-Id", session)
                .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            req.header("X-Herald-User", user);
        }
        return http.sendAsync(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Sends one message to a durable API session with its {@code X-Herald-Request-Id} (a client that retries sends the
     * same id again), waiting at most {@code timeout}.
     */
    CompletableFuture<HttpResponse<String>> chat(String session, String text, String requestId, Duration timeout) {
        String body = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":" + quote(text) + "}]}";
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").header("X-Herald-Session-Id", session)
                .header("X-Herald-Request-Id", requestId).timeout(timeout).POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.sendAsync(req, HttpResponse.BodyHandlers.ofString());
    }

    /** Sends one stateless request (no session id: the request carries the whole history); completes with the response. */
    CompletableFuture<HttpResponse<String>> statelessChat(String text) {
        String body = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":" + quote(text) + "}]}";
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.sendAsync(req, HttpResponse.BodyHandlers.ofString());
    }

    /** The assistant text of a chat completion response. */
    static String answer(HttpResponse<String> response) throws IOException {
        if (response.statusCode() != 200) {
            throw new AssertionError("HTTP " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body()).path("choices").path(0).path("message").path("content").asText();
    }

    void signal(long pid, String signal) throws Exception {
        int rc = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
        if (rc != 0) {
            throw new AssertionError("kill -" + signal + " " + pid + " failed with " + rc);
        }
    }

    /** SIGTERM to the process this harness started (the supervisor, or the foreground gateway). */
    void terminate() throws Exception {
        signal(process.pid(), "TERM");
    }

    /** kill -9 of the gateway process (the supervisor, if any, starts a new one). */
    void killGateway() throws Exception {
        long pid = gatewayPid().orElseThrow(() -> new AssertionError("no gateway pid"));
        signal(pid, "KILL");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (alive(pid) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    int awaitExit(Duration max) throws Exception {
        if (!process.waitFor(max.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            throw new AssertionError("herald did not exit within " + max.toSeconds() + " s; output:\n" + output());
        }
        return process.exitValue();
    }

    /** The process started last (the supervisor, or the foreground gateway). */
    Process process() {
        return process;
    }

    boolean running() {
        return process != null && process.isAlive();
    }

    String output() {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= started.size(); i++) {
            try {
                sb.append("---- out-").append(i).append(".log\n").append(Files.readString(home.resolve("out-" + i + ".log")));
            } catch (IOException e) {
                sb.append("(unreadable)\n");
            }
        }
        return sb.toString();
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Override
    public void close() {
        OptionalLong gw = gatewayPid();
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        gw.ifPresent(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static String indent(String yaml) {
        StringBuilder sb = new StringBuilder();
        for (String line : yaml.split("\n")) {
            if (!line.isBlank()) {
                sb.append("  ").append(line.strip()).append('\n');
            }
        }
        return sb.toString();
    }

    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
