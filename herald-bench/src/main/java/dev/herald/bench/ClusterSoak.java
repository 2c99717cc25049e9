package dev.herald.bench;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Three nodes on one PostgreSQL database (clustering on), and {@code --pairs} sessions each used from two tabs at once:
 * each round, both tabs send a message to the session at the same moment, to two different nodes, and wait for their
 * answers (streamed or not, in turn); a message sent again goes to any node that is up. Meanwhile a node is taken out every few seconds, by kill -9 and by SIGTERM in turn, and started again; clients
 * stop choosing a node just before it goes and send again (same request id) to a live one. After the disruptions the
 * tabs go on for a few more rounds, then the load stops.
 */
final class ClusterSoak {
    static final int NODES = 3;
    private static final int ROUNDS_AFTER = 3;
    private static final int MAX_ROUNDS = 2_000;

    private ClusterSoak() {
    }

    static FaultSoak.Result run(FaultSoak.Soak soak) throws Exception {
        FaultSoak.Options o = soak.options();
        soak.phase("cluster", "starting PostgreSQL and " + NODES + " nodes (lease " + o.lease() + " s)");
        SoakPostgres pg = soak.cleanup().add(SoakPostgres.start(soak.dir().resolve("cluster-pgdata")));
        String db = pg.database("cluster");
        EchoModel model = soak.cleanup().add(new EchoModel(o.seed(), Duration.ofMillis(400), Duration.ZERO));
        SoakNode[] nodes = new SoakNode[NODES];
        AtomicIntegerArray up = new AtomicIntegerArray(NODES);
        for (int i = 0; i < NODES; i++) {
            String yaml = "store:\n  url: " + db + "\n  user: postgres\ncluster:\n  enabled: true\n  node_id: node-" + i
                    + "\n  lease_seconds: " + o.lease() + "\n";
            nodes[i] = soak.cleanup().add(SoakNode.configure("node " + i, o.launcher(), soak.dir().resolve("cluster-node-" + i),
                    soak.dir().resolve("cluster-node-" + i + ".log"), model.baseUrl(), 120, yaml));
        }
        for (int i = 0; i < NODES; i++) {
            nodes[i].start();
            up.set(i, 1);
        }

        SoakLedger ledger = new SoakLedger();
        SoakClient.Counters counters = new SoakClient.Counters();
        AtomicBoolean disruptionsDone = new AtomicBoolean();
        List<Thread> tabs = new ArrayList<>();
        soak.phase("cluster", o.pairs() + " sessions, each sending from two tabs at once");
        for (int s = 0; s < o.pairs(); s++) {
            String session = "cluster-" + o.seed() + "-s" + s;
            int[] round = {0};
            int[] after = {0};
            boolean[] more = {true};
            int[] target = {0, 1};
            Random draw = new Random(o.seed() * 31 + s);
            // both tabs learn at once whether there is another round, and which two nodes they send it to
            CyclicBarrier together = new CyclicBarrier(2, () -> {
                more[0] = round[0]++ < MAX_ROUNDS && (!disruptionsDone.get() || after[0]++ < ROUNDS_AFTER);
                target[0] = draw.nextInt(NODES);
                target[1] = (target[0] + 1 + draw.nextInt(NODES - 1)) % NODES;
            });
            for (int t = 0; t < 2; t++) {
                String tab = t == 0 ? "a" : "b";
                int which = t;
                Random random = new Random(o.seed() * 31 + s * 2L + t);
                SoakClient client = soak.cleanup().add(new SoakClient(counters));
                tabs.add(Thread.ofVirtual().name("soak-tab-" + s + tab).start(() -> {
                    for (int m = 0; ; m++) {
                        try {
                            together.await(SoakClient.GIVE_UP.toSeconds(), TimeUnit.SECONDS);
                        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                            return;
                        }
                        if (!more[0]) {
                            return;
                        }
                        String text = session + "-" + tab + m;
                        int first = target[which];
                        boolean[] retry = {false};
                        try {
                            ledger.add(session, text, client.send(() -> {
                                URI node = retry[0] || up.get(first) == 0 ? pick(nodes, up, random) : nodes[first].uri("/");
                                retry[0] = true;
                                return node;
                            }, session, text, (m + which) % 2 == 0));
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }));
            }
        }

        Random random = new Random(o.seed());
        int kills = 0;
        int stops = 0;
        try {
            for (int d = 0; d < o.disruptions(); d++) {
                Thread.sleep(1_000 + random.nextInt(2_000));
                int i = random.nextInt(NODES);
                boolean kill = d % 2 == 0;
                soak.phase("cluster", "disruption " + (d + 1) + " of " + o.disruptions() + ": " + (kill ? "kill -9" : "SIGTERM")
                        + " of node " + i + ", then start it again");
                up.set(i, 0);
                Thread.sleep(100); // clients stop choosing it; requests already sent to it are cut off
                if (kill) {
                    nodes[i].kill();
                    kills++;
                } else {
                    nodes[i].terminate();
                    stops++;
                }
                nodes[i].start();
                up.set(i, 1);
            }
        } finally {
            disruptionsDone.set(true);
        }
        soak.phase("cluster", "disruptions done; the tabs send " + ROUNDS_AFTER + " more rounds, then the turns settle");
        for (Thread t : tabs) {
            t.join();
        }
        SoakLedger.Store store = SoakLedger.Store.postgres(db);
        int stuck = store.awaitSettled();
        SoakLedger.Counts counts = ledger.count(store.transcript(), stuck);
        long resumed = store.count("SELECT COUNT(*) FROM turns WHERE origin = 'RESUME'");
        for (SoakNode n : nodes) {
            soak.cleanup().runNow(n);
        }
        return FaultSoak.Result.counted("cluster", counts, NODES + " nodes, " + (kills + stops) + " disruptions (" + kills + " kill -9, "
                + stops + " SIGTERM), " + o.pairs() + " sessions x 2 tabs; " + counters.summary() + "; "
                + counts.kind(SoakClient.Kind.CONTINUED) + " cut off by a kill and continued by the next turn (409), " + resumed
                + " turns resumed");
    }

    /** A node that is up, chosen at random; null when none is. */
    private static URI pick(SoakNode[] nodes, AtomicIntegerArray up, Random random) {
        for (int tries = 0; tries < 20; tries++) {
            int i = random.nextInt(nodes.length);
            if (up.get(i) == 1) {
                return nodes[i].uri("/");
            }
        }
        return null;
    }
}
