package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.CliEnvironment;
import dev.herald.app.Main;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling restart under load (issue 11, item 6): three real {@code herald run} nodes on one PostgreSQL database,
 * clients sending turns to all three without pause (each conversation moves from node to node), and {@code herald
 * restart} of each node in turn, each after the one before is back. Every request is answered once, the model sees
 * every message once, no turn is interrupted or resumed (each is far shorter than the drain time), and neither the
 * clients nor a {@code /health} poller on each port ever finds a port closed.
 */
class RollingRestartIT {
    static final Duration WAIT = Duration.ofSeconds(90);
    static final int NODES = 3;
    static final int CLIENTS = 6;

    @TempDir
    Path dir;
    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    FakeModelServer model;
    final List<HeraldProcess> nodes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        model = FakeModelServer.start();
        Random delays = new Random(11);
        model.defaultReply(r -> {
            int ms;
            synchronized (delays) {
                ms = 20 + delays.nextInt(180);
            }
            return Reply.text("echo: " + r.lastUserMessage()).delayed(Duration.ofMillis(ms));
        });
    }

    @AfterEach
    void tearDown() {
        nodes.forEach(HeraldProcess::close);
        model.close();
    }

    /** Starts a supervised node ({@code herald restart} needs the supervisor) on the shared database. */
    private HeraldProcess node(String id) throws Exception {
        HeraldProcess n = HeraldProcess.configureNode(dir.resolve(id), model.baseUrl().toString(), "drain_timeout_seconds: 30", db.url(), id, 6);
        nodes.add(n);
        n.start();
        return n;
    }

    @Test
    void heraldRestartOfEachNodeInTurn_underContinuousLoad_losesNothing_answersNothingTwice_andInterruptsNothing() throws Exception {
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            pids.add(node("node-" + (char) ('a' + i)).awaitReady()); // one after the other: three JVMs starting at once share 2 cores
        }
        List<HandoverRestartIT.Health> health = nodes.stream().map(n -> new HandoverRestartIT.Health(n.port)).toList();
        Load load = new Load(nodes);
        Thread.sleep(1_500); // every client has a few turns behind it before the first restart

        List<String> restarted = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            HeraldProcess n = nodes.get(i);
            StringWriter out = new StringWriter();
            int rc = Main.run(cli(out), "restart", "--home", n.home.toString(), "--timeout", "80");
            long now = n.awaitReady(pids.get(i));
            restarted.add("node " + (i + 1) + ": rc " + rc + ", pid " + pids.get(i) + " -> " + now + " (" + out.toString().strip() + ")");
            assertThat(rc).as("herald restart of node %d: %s\n%s", i + 1, out, n.output()).isZero();
            awaitExit(pids.get(i));
            Thread.sleep(1_000); // load on the new process before the next node goes
        }
        load.stop();
        for (HandoverRestartIT.Health h : health) {
            h.stop();
        }

        System.out.println("RollingRestartIT: " + load.answered.size() + " requests answered, " + load.failures.size() + " failed, "
                + load.retried.size() + " answered 503 (stopping) and retried " + load.retried + "; health polls "
                + health.stream().map(h -> h.polls.get() + " (" + h.failures.get() + " failed)").toList() + "; " + restarted);
        String diagnosis = String.join("\n", restarted) + "\n" + nodes.stream().map(HeraldProcess::output).collect(Collectors.joining());
        assertThat(load.failures).as("requests that failed (refused, reset, not 200, a wrong answer)\n" + diagnosis).isEmpty();
        assertThat(load.answered.size()).as("answered requests").isGreaterThan(CLIENTS * 5);
        Map<String, Long> asked = model.requests().stream().map(RecordedRequest::lastUserMessage)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertThat(load.answered.keySet()).allSatisfy(text -> assertThat(asked.get(text)).as("model calls for %s", text).isEqualTo(1L));
        assertThat(asked.keySet()).as("the model saw nothing nobody sent").isEqualTo(load.answered.keySet());
        assertThat(db.text("SELECT COUNT(*) FROM turns WHERE state = 'DELIVERED'")).isEqualTo(Integer.toString(load.answered.size()));
        assertThat(db.text("SELECT COUNT(*) FROM turns WHERE state = 'INTERRUPTED' OR origin = 'RESUME' OR state = 'RUNNING'"))
                .as("interrupted, resumed or running turns").isEqualTo("0");
        assertThat(db.text("SELECT string_agg(node_id, ',' ORDER BY node_id) FROM nodes WHERE state <> 'gone'"))
                .as("the nodes that run: each configured id, taken over by its next incarnation").isEqualTo("node-a.next,node-b.next,node-c.next");
        for (int i = 0; i < NODES; i++) {
            HandoverRestartIT.Health h = health.get(i);
            assertThat(h.polls.get()).as("health polls of node %d", i + 1).isGreaterThan(20);
            assertThat(h.failures.get()).as("health polls of node %d that found the port closed: %s", i + 1, h.lastFailure).isZero();
        }
    }

    /**
     * Clients that each talk in a conversation of their own, one message after the other, each message to the next
     * node; a request that fails is recorded, never retried (a retry would hide a lost message), except a 503
     * "stopping" with Retry-After, which a handing-over node answers to a request that waited for another node's turn
     * in its session: that one is sent again once, to the next node (the model must still see each message once).
     */
    static final class Load {
        final Map<String, String> answered = new ConcurrentHashMap<>();
        final List<String> failures = new CopyOnWriteArrayList<>();
        /** Requests answered 503 "stopping" (with Retry-After) and sent again once. */
        final List<String> retried = new CopyOnWriteArrayList<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Thread> clients = new ArrayList<>();

        Load(List<HeraldProcess> nodes) {
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                clients.add(Thread.ofVirtual().start(() -> talk(nodes, client)));
            }
        }

        private void talk(List<HeraldProcess> nodes, int client) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (int m = 0; !stop.get(); m++) {
                HeraldProcess node = nodes.get((client + m) % nodes.size());
                String text = "c" + client + "-m" + m;
                String body = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
                HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port + "/v1/chat/completions"))
                        .header("Content-Type", "application/json").header("X-Herald-Session-Id", "rolling-" + client)
                        .timeout(WAIT).POST(HttpRequest.BodyPublishers.ofString(body)).build();
                try {
                    HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
                    if (res.statusCode() == 503 && res.headers().firstValue("Retry-After").isPresent() && res.body().contains("\"stopping\"")) {
                        // the node was handing over while this request waited for another node's turn in the session;
                        // retried at once, elsewhere, as an OpenAI client retries a 503
                        retried.add(text + " on port " + node.port);
                        node = nodes.get((client + m + 1) % nodes.size());
                        req = HttpRequest.newBuilder(req, (k, v) -> true).uri(URI.create("http://127.0.0.1:" + node.port + "/v1/chat/completions")).build();
                        res = http.send(req, HttpResponse.BodyHandlers.ofString());
                    }
                    String answer = HeraldProcess.answer(res);
                    if (!answer.equals("echo: " + text)) {
                        failures.add(text + " on port " + node.port + " was answered '" + answer + "'");
                    }
                    answered.put(text, answer);
                } catch (Exception | AssertionError e) {
                    failures.add(text + " on port " + node.port + ": " + e);
                }
            }
        }

        void stop() throws InterruptedException {
            stop.set(true);
            for (Thread t : clients) {
                t.join(WAIT);
            }
        }
    }

    private static void awaitExit(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (HeraldProcess.alive(pid) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(HeraldProcess.alive(pid)).as("the old process %d left", pid).isFalse();
    }

    private static CliEnvironment cli(StringWriter out) {
        return new CliEnvironment(Map.of(), Path.of(System.getProperty("user.home")), new PrintWriter(out), new PrintWriter(new StringWriter()));
    }
}
