package dev.herald.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Several nodes and restarts that hand over, measured with real {@code herald run} processes (the checkout's
 * {@code bin/herald}), an embedded PostgreSQL server and an instant scripted model, all on loopback:
 *
 * <ol>
 *   <li><b>failover</b>: three nodes; a turn held at the model on one node, then kill -9 of that node; the time until the
 *       interrupted turn is resumed (dispatched to the model) by another node; p50 and p99 over {@code --kills};</li>
 *   <li><b>handover</b>: one node (SQLite), {@code --clients} clients sending turns without pause, {@code herald restart}
 *       in the middle; requests refused, turns interrupted, and the longest time without an answer;</li>
 *   <li><b>throughput</b>: 1 and then 3 nodes on one PostgreSQL database, {@code --clients} clients spread over the nodes'
 *       APIs, {@code --turns} turns each time: turns per second.</li>
 * </ol>
 * {@code bin/bench-cluster} runs it.
 */
public final class ClusterBench {
    static final String NOTE = "[System note: The previous turn was interrupted";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ClusterBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args);
        int kills = Integer.parseInt(opts.getOrDefault("kills", "20"));
        int lease = Integer.parseInt(opts.getOrDefault("lease", "15"));
        int clients = Integer.parseInt(opts.getOrDefault("clients", "8"));
        int turns = Integer.parseInt(opts.getOrDefault("turns", "600"));
        Path launcher = Path.of(opts.getOrDefault("herald", "bin/herald")).toAbsolutePath();
        Path dir = Files.createTempDirectory(Path.of(opts.getOrDefault("dir", System.getProperty("java.io.tmpdir"))), "herald-cluster-bench");
        java.util.Set<String> only = new java.util.HashSet<>(List.of(opts.getOrDefault("only", "failover,handover,throughput").split(",")));
        boolean ok = false;
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder().setServerConfig("max_connections", "300").start();
                FakeModelServer model = FakeModelServer.start()) {
            Bench b = new Bench(launcher, dir, pg, model);
            System.out.printf("%-58s %s%n", "measure", "result");
            if (kills > 0 && only.contains("failover")) {
                b.failover(kills, lease);
            }
            if (only.contains("handover")) {
                b.handover(clients);
            }
            if (only.contains("throughput")) {
                b.throughput(1, clients, turns);
                b.throughput(3, clients, turns);
            }
            ok = true;
        } finally {
            if (ok) {
                Args.deleteTree(dir);
            } else {
                System.err.println("bench - failed; the nodes' homes and logs are kept in " + dir);
            }
        }
    }

    /** The scenarios, sharing one PostgreSQL server, one model and a folder for homes. */
    private record Bench(Path launcher, Path dir, EmbeddedPostgres pg, FakeModelServer model) {

        void failover(int kills, int lease) throws Exception {
            String db = database("failover");
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                nodes.add(Node.start(launcher, dir.resolve("failover-" + i), model, postgres(db, lease), false));
            }
            List<Long> ms = new ArrayList<>();
            try {
                for (int k = 0; k < kills; k++) {
                    int victim = k % 3;
                    String session = "failover-" + k;
                    String task = "task " + k;
                    Hold hold = model.enqueueHeld(Reply.text("never sent"));
                    nodes.get(victim).chatAsync(session, task);
                    hold.awaitArrived(Duration.ofSeconds(60));
                    System.err.printf("bench - failover %d of %d: kill -9 of node %d%n", k + 1, kills, victim);
                    long t0 = System.nanoTime();
                    nodes.get(victim).kill();
                    awaitModel(r -> r.lastUserMessage().startsWith(NOTE) && r.messages().stream().anyMatch(m -> task.equals(m.content())),
                            Duration.ofSeconds(lease + 30L));
                    ms.add((System.nanoTime() - t0) / 1_000_000);
                    hold.drop();
                    nodes.set(victim, Node.start(launcher, dir.resolve("failover-" + victim), model, postgres(db, lease), false));
                }
            } finally {
                nodes.forEach(Node::close);
            }
            Collections.sort(ms);
            row("failover, kill -9 to the resumed turn at the model (" + kills + " kills)", "p50 " + ms.get(ms.size() / 2) + " ms, p99 "
                    + ms.get(Math.min(ms.size() - 1, (int) Math.ceil(ms.size() * 0.99) - 1)) + " ms, max " + ms.getLast() + " ms");
        }

        void handover(int clients) throws Exception {
            Node node = Node.start(launcher, dir.resolve("handover"), model, "", true);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger ok = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            List<Long> answeredAt = new CopyOnWriteArrayList<>();
            long restartMs;
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int c = 0; c < clients; c++) {
                    String session = "handover-" + c;
                    pool.submit(() -> {
                        int i = 0;
                        while (!stop.get()) {
                            try {
                                HttpResponse<String> r = node.chat(session, "message " + i++);
                                (r.statusCode() == 200 ? ok : failed).incrementAndGet();
                                answeredAt.add(System.nanoTime());
                            } catch (IOException | InterruptedException e) {
                                failed.incrementAndGet();
                            }
                        }
                        return null;
                    });
                }
                Thread.sleep(3_000);
                long t0 = System.nanoTime();
                Process restart = new ProcessBuilder(launcher.toString(), "restart", "--home", node.home.toString()).inheritIO().start();
                if (restart.waitFor() != 0) {
                    throw new IllegalStateException("bench - herald restart failed");
                }
                restartMs = (System.nanoTime() - t0) / 1_000_000;
                Thread.sleep(5_000);
                stop.set(true);
            }
            long interrupted = node.sqlite("SELECT COUNT(*) FROM turns WHERE state = 'INTERRUPTED' OR origin = 'RESUME'");
            node.close();
            List<Long> times = new ArrayList<>(answeredAt);
            Collections.sort(times);
            long gap = 0;
            for (int i = 1; i < times.size(); i++) {
                gap = Math.max(gap, times.get(i) - times.get(i - 1));
            }
            row("handover restart under load (" + clients + " clients, SQLite)", "herald restart " + restartMs + " ms; " + ok.get()
                    + " answered, " + failed.get() + " refused or failed, " + interrupted + " interrupted; longest gap " + gap / 1_000_000 + " ms");
        }

        void throughput(int count, int clients, int turns) throws Exception {
            String db = database("throughput" + count);
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                nodes.add(Node.start(launcher, dir.resolve("throughput-" + count + "-" + i), model, postgres(db, 15), false));
            }
            AtomicInteger left = new AtomicInteger(turns);
            AtomicInteger failed = new AtomicInteger();
            long t0 = System.nanoTime();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> done = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    Node n = nodes.get(c % count);
                    String session = "load-" + count + "-" + c;
                    done.add(pool.submit(() -> {
                        while (left.getAndDecrement() > 0) {
                            try {
                                if (n.chat(session, "hello").statusCode() != 200) {
                                    failed.incrementAndGet();
                                }
                            } catch (IOException | InterruptedException e) {
                                failed.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                nodes.forEach(Node::close);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            row("throughput, " + count + " node(s) on one PostgreSQL (" + clients + " clients)",
                    String.format("%.0f turns/s (%d turns in %.1f s, %d failed)", turns / seconds, turns, seconds, failed.get()));
        }

        private String database(String name) throws Exception {
            try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + name);
            }
            return name;
        }

        private String postgres(String db, int lease) {
            return "store:\n  url: jdbc:postgresql://localhost:" + pg.getPort() + "/" + db + "\n  user: postgres\n"
                    + "cluster:\n  enabled: true\n  lease_seconds: " + lease + "\n";
        }

        private void awaitModel(java.util.function.Predicate<RecordedRequest> matching, Duration max) throws InterruptedException {
            long deadline = System.nanoTime() + max.toNanos();
            while (System.nanoTime() < deadline) {
                for (RecordedRequest r : model.requests()) {
                    if (matching.test(r)) {
                        return;
                    }
                }
                Thread.sleep(5);
            }
            throw new IllegalStateException("bench - the interrupted turn was not resumed within " + max.toSeconds() + " s");
        }
    }

    private static void row(String measure, String result) {
        System.out.printf("%-58s %s%n", measure, result);
        System.out.flush();
    }

    /** One {@code herald run} on its own home and API port. */
    private static final class Node implements AutoCloseable {
        final Path home;
        final int port;
        final Process process;

        private Node(Path home, int port, Process process) {
            this.home = home;
            this.port = port;
            this.process = process;
        }

        /** Starts a node (supervised, or as the gateway process itself) and waits until it runs. */
        static Node start(Path launcher, Path home, FakeModelServer model, String extraYaml, boolean supervised) throws Exception {
            Files.createDirectories(home);
            Files.deleteIfExists(home.resolve("gateway_state.json"));
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Files.writeString(home.resolve("config.yaml"), "model:\n  base_url: " + model.baseUrl() + "\n  name: bench\n  max_retries: 0\n"
                    + "platforms:\n  api_server:\n    port: " + port + "\n  webchat:\n    enabled: false\n"
                    + "gateway:\n  drain_timeout_seconds: 30\nagent:\n  tools: []\n" + extraYaml);
            List<String> cmd = new ArrayList<>(List.of(launcher.toString(), "run", "--home", home.toString()));
            if (!supervised) {
                cmd.add("--foreground");
            }
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("out.log").toFile()));
            pb.environment().remove("INVOCATION_ID");
            pb.environment().remove("HERALD_SUPERVISED_CHILD");
            pb.environment().remove("HERALD_SUPERVISOR_PID");
            Node n = new Node(home, port, pb.start());
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (System.nanoTime() < deadline) {
                try {
                    var state = JSON.readTree(Files.readString(home.resolve("gateway_state.json")));
                    if ("running".equals(state.path("state").asText())) {
                        return n;
                    }
                } catch (IOException e) {
                    // not written yet
                }
                if (!n.process.isAlive()) {
                    throw new IllegalStateException("bench - herald exited " + n.process.exitValue() + "; see " + home.resolve("out.log"));
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException("bench - herald did not run within 120 s; see " + home.resolve("out.log"));
        }

        HttpResponse<String> chat(String session, String text) throws IOException, InterruptedException {
            return HTTP.send(request(session, text), HttpResponse.BodyHandlers.ofString());
        }

        void chatAsync(String session, String text) {
            HTTP.sendAsync(request(session, text), HttpResponse.BodyHandlers.discarding());
        }

        private HttpRequest request(String session, String text) {
            String body = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
            return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .header("Content-Type", "application/json").header("X-Herald-Session-Id", session).timeout(Duration.ofSeconds(120))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        }

        void kill() throws Exception {
            process.destroyForcibly().waitFor();
        }

        long sqlite(String sql) throws Exception {
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + home.resolve("herald.db")); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        @Override
        public void close() {
            process.toHandle().descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            try {
                if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
