package dev.herald.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.inbound.GatewayState;
import dev.herald.core.session.SessionSource;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node that finds it was judged dead by the others (its lease ran out: a long pause, a network split from the
 * database) while it runs a turn and has another message of the session waiting: it stops its running turn at once,
 * runs nothing more, sends nothing more, and stops; the node that took its sessions resumes the cut-off turn once and
 * runs the waiting message once.
 */
class FencedNodeTest {
    static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    final List<Node> nodes = new ArrayList<>();

    private Node node(String id) {
        Node n = new Node(id, PostgresStorage.open(db.options(), Clock.systemUTC()), true, Duration.ofSeconds(3), Clock.systemUTC());
        nodes.add(n);
        n.start();
        return n;
    }

    @AfterEach
    void stopNodes() {
        nodes.forEach(Node::close);
    }

    @Test
    void aNodeJudgedDeadWhileItRunsATurn_stopsItAndRunsNothingMore_andTheSurvivorFinishesTheSessionOnce() throws Exception {
        Node a = node("a");
        Node b = node("b");
        SessionSource erin = Node.dm("erin");
        ScriptedAgent.Hold running = a.agent.hold("the answer a must never send");
        a.chat.say(erin, "a long job", "m-1");
        running.awaitArrival(WAIT);
        a.chat.say(erin, "and then this", "m-2"); // waits behind the running turn on a

        db.update("UPDATE nodes SET state = 'gone' WHERE node_id = 'a'"); // b judged a dead

        long deadline = System.nanoTime() + WAIT.toNanos();
        while (a.gateway.status().state() != GatewayState.STOPPED && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(a.gateway.status().state()).as("a stops once it finds it was judged dead").isEqualTo(GatewayState.STOPPED);
        running.release(); // too late: its turn was interrupted

        b.chat.awaitSent(t -> t.contains("and then this"), WAIT);
        Thread.sleep(1_000);
        assertThat(a.agent.calls()).as("a ran nothing after the running turn").hasSize(1);
        assertThat(a.chat.sent()).as("a sent nothing").isEmpty();
        // b continues the cut-off turn (its own resume turn, or the note on the waiting message) and runs the waiting one once
        assertThat(b.agent.calls()).hasSizeBetween(1, 2);
        assertThat(b.agent.calls()).filteredOn(r -> r.userMessage().contains("and then this")).hasSize(1);
        assertThat(b.agent.calls().getFirst().userMessage()).contains("[System note");
        assertThat(db.text("SELECT COUNT(*) FROM turns WHERE state IN ('RECEIVED', 'RUNNING', 'AWAITING_DELIVERY')")).isEqualTo("0");
    }
}
