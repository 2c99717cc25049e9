package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several real {@code herald run} nodes on one PostgreSQL database (issue 11, item 2): a node that dies while it runs a
 * turn is taken over by another, which resumes the turn exactly once within the lease; a node paused past its lease
 * (SIGSTOP) finds its session taken when it wakes and sends no second reply.
 */
class ClusterFailoverIT {
    static final Duration WAIT = Duration.ofSeconds(90);
    static final int LEASE_SECONDS = 4;
    static final String NOTE = "[System note: The previous turn was interrupted";

    @TempDir
    Path dir;
    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    FakeModelServer model;
    final List<HeraldProcess> nodes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        model = FakeModelServer.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (HeraldProcess n : nodes) {
            if (n.running()) {
                n.signal(n.process().pid(), "CONT");
            }
            n.close();
        }
        model.close();
    }

    /** Starts a node (foreground: a killed node stays dead) on the shared database and waits until it runs. */
    private HeraldProcess node(String id) throws Exception {
        HeraldProcess n = HeraldProcess.configureNode(dir.resolve(id), model.baseUrl().toString(), "drain_timeout_seconds: 1", db.url(), id, LEASE_SECONDS);
        nodes.add(n);
        n.start(false, Map.of()).awaitReady();
        return n;
    }

    @Test
    void killDashNineOfTheNodeRunningAHeldTurn_anotherNodeResumesItOnce_withinTheLeasePlusTwoSeconds() throws Exception {
        HeraldProcess a = node("node-a");
        node("node-b");
        node("node-c");
        Hold hold = model.enqueueHeld(Reply.text("never sent"));
        a.chat("failover", "rebuild the index");
        hold.awaitArrived(WAIT);
        model.enqueue(Reply.text("index rebuilt"));

        long killed = System.nanoTime();
        a.signal(a.process().pid(), "KILL");

        RecordedRequest resumed = awaitRequest(r -> r.lastUserMessage().startsWith(NOTE));
        double seconds = (System.nanoTime() - killed) / 1e9;
        assertThat(seconds).as("kill -9 to the resumed turn at the model, in seconds").isLessThanOrEqualTo(LEASE_SECONDS + 2);
        assertThat(resumed.messages()).extracting(RecordedRequest.Message::content).contains("rebuild the index");
        Thread.sleep(3_000);
        assertThat(model.requests()).filteredOn(r -> r.lastUserMessage().startsWith(NOTE)).as("resumed exactly once").hasSize(1);
        assertThat(db.text("SELECT owner_node FROM turns WHERE origin = 'RESUME' AND state = 'DELIVERED'")).isIn("node-b", "node-c");
        assertThat(db.text("SELECT state FROM nodes WHERE node_id = 'node-a'")).isEqualTo("gone");
        assertThat(db.text("SELECT COUNT(*) FROM turns WHERE state = 'RUNNING'")).isEqualTo("0");
    }

    @Test
    void aNodePausedPastItsLease_findsItsSessionTakenWhenItWakes_andSendsNoSecondReply() throws Exception {
        HeraldProcess a = node("node-a");
        node("node-b");
        Hold hold = model.enqueueHeld(Reply.text("late answer from the paused node"));
        CompletableFuture<HttpResponse<String>> held = a.chat("paused", "summarise the logs");
        hold.awaitArrived(WAIT);
        model.enqueue(Reply.text("summary from the node that took over"));

        a.signal(a.process().pid(), "STOP");
        awaitRequest(r -> r.lastUserMessage().startsWith(NOTE));
        awaitText("SELECT COUNT(*) FROM turns WHERE origin = 'RESUME' AND state = 'DELIVERED'", "1");
        a.signal(a.process().pid(), "CONT");
        hold.release();

        assertThat(a.awaitExit(WAIT)).as("judged dead: it stops without writing and exits 75 to rejoin as a new node").isEqualTo(75);
        assertThat(held.handle((r, e) -> r == null ? "" : r.body()).get()).doesNotContain("late answer");
        String transcript = db.text("SELECT string_agg(content, ' | ' ORDER BY seq) FROM messages");
        assertThat(transcript).contains("summary from the node that took over").doesNotContain("late answer");
        assertThat(db.text("SELECT COUNT(*) FROM turns WHERE reply LIKE '%late answer%'")).isEqualTo("0");
        assertThat(model.requests()).filteredOn(r -> r.lastUserMessage().startsWith(NOTE)).as("resumed exactly once").hasSize(1);
        assertThat(a.output()).contains("was judged dead by another node");
    }

    private void awaitText(String sql, String expected) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (expected.equals(db.text(sql))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(sql + " never gave " + expected + "; it gives " + db.text(sql));
    }

    private RecordedRequest awaitRequest(Predicate<RecordedRequest> matching) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (RecordedRequest r : model.requests()) {
                if (matching.test(r)) {
                    return r;
                }
            }
            Thread.sleep(20);
        }
        StringBuilder out = new StringBuilder();
        nodes.forEach(n -> out.append(n.output()));
        throw new AssertionError("no matching model request within " + WAIT.toSeconds() + " s; saw "
                + model.requests().stream().map(RecordedRequest::lastUserMessage).toList() + "\n" + out);
    }
}
