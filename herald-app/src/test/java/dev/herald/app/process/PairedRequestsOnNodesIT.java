package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Messages of one conversation sent to two nodes at the same moment (two browser tabs; a load balancer that retries),
 * through the real API of three {@code herald run} nodes on one PostgreSQL database, while nodes are killed (kill -9)
 * and stopped (SIGTERM) and started again. Each client behaves as the API asks: it sends every message with its own
 * {@code X-Herald-Request-Id} to any node that is up, and sends it again, with the same id, after a 503, a timeout or a
 * lost connection. Every message must get its answer (HTTP 200), be stored once, and no turn may be left waiting.
 */
class PairedRequestsOnNodesIT {
    static final int NODES = 3;
    static final int LEASE_SECONDS = 3;
    static final int SESSIONS = 2;
    static final int MESSAGES = 6;
    static final int DISRUPTIONS = 4;
    static final Duration GIVE_UP = Duration.ofSeconds(150);

    @TempDir
    Path dir;
    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    FakeModelServer model;
    final HeraldProcess[] nodes = new HeraldProcess[NODES];
    final AtomicIntegerArray up = new AtomicIntegerArray(NODES);
    /** Per message: the body of the 200 that answered it, or what ended it otherwise. */
    final Map<String, String> outcomes = new ConcurrentHashMap<>();
    final Map<String, Integer> attempts = new ConcurrentHashMap<>();
    final AtomicBoolean disruptionsDone = new AtomicBoolean();

    @BeforeEach
    void setUp() {
        model = FakeModelServer.start();
        Random pace = new Random(11);
        model.defaultReply(r -> {
            int ms;
            synchronized (pace) {
                ms = 20 + pace.nextInt(400);
            }
            return Reply.text("echo: " + r.lastUserMessage()).withPacing(new Reply.Pacing(Duration.ofMillis(ms), Duration.ZERO, null, -1, -1));
        });
    }

    @AfterEach
    void tearDown() {
        for (HeraldProcess n : nodes) {
            if (n != null) {
                n.close();
            }
        }
        model.close();
    }

    private void startNode(int i) throws Exception {
        if (nodes[i] == null) {
            nodes[i] = HeraldProcess.configureNode(dir.resolve("node-" + i), model.baseUrl().toString(), "drain_timeout_seconds: 2",
                    db.url(), "node-" + i, LEASE_SECONDS);
        }
        long before = nodes[i].gatewayPid().orElse(-1);
        nodes[i].start(false, Map.of()).awaitReady(before);
        up.set(i, 1);
    }

    @Test
    void pairedMessagesOnTwoNodes_withKillsAndStopsAmongThem_areEachAnsweredOnce() throws Exception {
        for (int i = 0; i < NODES; i++) {
            startNode(i);
        }
        List<Thread> clients = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            int[] round = {0};
            boolean[] more = {true};
            // both tabs learn at once whether there is another round: until the disruptions are over, and at least MESSAGES
            CyclicBarrier together = new CyclicBarrier(2, () -> more[0] = round[0]++ < MESSAGES || !disruptionsDone.get() && round[0] <= 200);
            for (String tab : List.of("a", "b")) {
                String session = "pair-" + s;
                long seed = s * 31L + tab.hashCode();
                clients.add(Thread.ofVirtual().start(() -> client(session, tab, together, more, new Random(seed))));
            }
        }
        Random random = new Random(7);
        int disrupted = 0;
        while (disrupted < DISRUPTIONS && clients.stream().anyMatch(Thread::isAlive)) {
            Thread.sleep(1_000 + random.nextInt(2_000));
            int i = random.nextInt(NODES);
            up.set(i, 0);
            Thread.sleep(100); // clients stop choosing it; requests already sent to it are cut off
            if (disrupted % 2 == 0) {
                nodes[i].signal(nodes[i].process().pid(), "KILL");
                nodes[i].awaitExit(Duration.ofSeconds(10));
            } else {
                nodes[i].terminate();
                nodes[i].awaitExit(Duration.ofSeconds(60));
            }
            startNode(i);
            disrupted++;
        }
        disruptionsDone.set(true);
        for (Thread c : clients) {
            c.join(GIVE_UP);
        }
        awaitNothingOpen(Duration.ofSeconds(60));

        List<String> problems = new ArrayList<>();
        int continuedByTheNextTurn = 0;
        Map<String, Long> stored = new TreeMap<>();
        for (String text : outcomes.keySet()) {
            String outcome = outcomes.get(text);
            if (outcome.startsWith("409 ") && outcome.contains("cut off by a restart") && answeredInTranscript(text)) {
                continuedByTheNextTurn++; // cut off by a kill; the session's next turn, told so, answered it (the client is told)
            } else if (!outcome.startsWith("200 ")) {
                problems.add(text + ": not answered (" + outcome + ")");
            }
            long n = Long.parseLong(db.text("SELECT COUNT(*) FROM messages WHERE role = 'user' AND content = ?", text));
            stored.put(text, n);
            if (n != 1) {
                problems.add(text + ": stored " + n + " times");
            }
        }
        String open = db.text("SELECT string_agg(id || ':' || state || '@' || coalesce(owner_node, '-'), ', ') FROM turns "
                + "WHERE state IN ('RECEIVED', 'RUNNING', 'AWAITING_DELIVERY')");
        if (open != null) {
            problems.add("turns left open: " + open);
        }
        System.out.println("PairedRequestsOnNodesIT: " + disrupted + " disruptions, " + outcomes.size() + " messages ("
                + continuedByTheNextTurn + " cut off by a kill and continued by the next turn), " + attempts.values().stream()
                .mapToInt(Integer::intValue).sum() + " requests; sent more than once: " + attempts.entrySet().stream()
                .filter(e -> e.getValue() > 1).map(e -> e.getKey() + "=" + e.getValue()).sorted().toList());
        StringBuilder logs = new StringBuilder();
        if (!problems.isEmpty()) {
            for (HeraldProcess n : nodes) {
                logs.append(n.output());
            }
        }
        assertThat(problems).as("%s (problems first; the nodes' output after)%n%s", problems, logs).isEmpty();
        assertThat(outcomes.size()).isGreaterThanOrEqualTo(SESSIONS * 2 * MESSAGES);
        assertThat(disrupted).isEqualTo(DISRUPTIONS);
    }

    /** One tab of a session: its messages one after another, each sent at the same moment as the other tab's. */
    private void client(String session, String tab, CyclicBarrier together, boolean[] more, Random random) {
        for (int m = 0; ; m++) {
            String text = session + "-" + tab + m;
            try {
                together.await(GIVE_UP.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                outcomes.put(text, "the other tab never came: " + e);
                return;
            }
            if (!more[0]) {
                return;
            }
            outcomes.put(text, send(session, text, random));
        }
    }

    /** Sends until answered (200) or ended (409), again with the same request id after a 503, a timeout or a lost connection. */
    private String send(String session, String text, Random random) {
        long deadline = System.nanoTime() + GIVE_UP.toNanos();
        String last = "never sent";
        while (System.nanoTime() < deadline) {
            int i = random.nextInt(NODES);
            if (up.get(i) == 0) {
                continue;
            }
            attempts.merge(text, 1, Integer::sum);
            try {
                HttpResponse<String> r = nodes[i].chat(session, text, text, Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
                if (r.statusCode() == 200 || r.statusCode() == 409) {
                    return r.statusCode() + " " + r.body();
                }
                last = r.statusCode() + " " + r.body();
            } catch (Exception e) {
                last = e.toString();
            }
            sleep(200);
        }
        return "gave up after " + GIVE_UP.toSeconds() + " s; last: " + last;
    }

    /** Whether the message's user row is followed by an answer in its transcript. */
    private boolean answeredInTranscript(String text) {
        String where = db.text("SELECT session_id || ' ' || seq FROM messages WHERE role = 'user' AND content = ?", text);
        if (where == null) {
            return false;
        }
        String[] at = where.split(" ");
        return Long.parseLong(db.text("SELECT COUNT(*) FROM messages WHERE session_id = ? AND seq > ? AND role = 'assistant'",
                at[0], Long.parseLong(at[1]))) > 0;
    }

    private void awaitNothingOpen(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            if ("0".equals(db.text("SELECT COUNT(*) FROM turns WHERE state IN ('RECEIVED', 'RUNNING', 'AWAITING_DELIVERY')"))) {
                return;
            }
            Thread.sleep(200);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
