package dev.herald.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.cluster.NodeRecord;
import dev.herald.core.cluster.NodeState;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
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
 * Start-up takes only what is dead (issue 11, item 4): a node joining a cluster leaves a live node's running turn
 * alone, and takes the turns of a node whose lease ran out by the database's clock (resumed once, by the joiner).
 */
class StartupTakesOnlyWhatIsDeadTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final Duration LEASE = Duration.ofSeconds(3);

    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    final List<Node> nodes = new ArrayList<>();

    private Node node(String id) {
        Node n = new Node(id, PostgresStorage.open(db.options(), Clock.systemUTC()), true, LEASE, Clock.systemUTC());
        nodes.add(n);
        return n;
    }

    @AfterEach
    void stopNodes() {
        nodes.forEach(Node::close);
    }

    @Test
    void aNodeJoining_leavesTheRunningTurnOfALiveNodeAlone_whichAnswersItOnce() {
        Node a = node("a");
        a.start();
        ScriptedAgent.Hold hold = a.agent.hold("the report is done");
        SessionSource alice = Node.dm("alice");
        a.chat.say(alice, "write the report");
        hold.awaitArrival(WAIT);

        Node b = node("b");
        var report = b.start();

        assertThat(report.recovered()).isEmpty();
        TurnRecord running = b.storage.turns().inState(TurnState.RUNNING, 10).getFirst();
        assertThat(running.ownerNode()).isEqualTo("a");
        hold.release();
        a.chat.awaitSent(t -> t.equals("the report is done"), WAIT);
        assertThat(a.chat.sentMatching(t -> t.equals("the report is done"))).hasSize(1);
        assertThat(b.chat.sent()).isEmpty();
        assertThat(b.agent.calls()).as("b ran nothing").isEmpty();
        assertThat(b.storage.sessions().find(running.sessionKey()).orElseThrow().resumePending()).isFalse();
    }

    @Test
    void aNodeJoining_takesTheRunningTurnOfANodeWhoseLeaseRanOut_andResumesItOnce() throws Exception {
        // node "dead" is what a killed process leaves: its registry row and a turn it was running
        PostgresStorage left = PostgresStorage.open(db.options(), Clock.systemUTC());
        left.nodes().register(new NodeIdentity("dead", "elsewhere", 1, null), Duration.ofMillis(500), null);
        Turns deadTurns = new Turns(left.turns(), Turns.Observer.NONE, "dead");
        SessionSource bob = Node.dm("bob");
        var lane = left.sessions().getOrCreate(dev.herald.core.session.SessionKey.of(bob), bob);
        TurnRecord cut = deadTurns.receive(lane.key(), MessageEvent.text(bob, "migrate the data", "m-1", java.time.Instant.now())).orElseThrow();
        deadTurns.start(cut.id(), lane.sessionId(), TranscriptRow.user("migrate the data", java.time.Instant.now())).orElseThrow();
        left.close();
        Thread.sleep(700); // its lease runs out by the database's clock

        Node b = node("b");
        b.agent.reply("data migrated");
        var report = b.start();

        assertThat(report.recovered()).containsExactly(lane.key());
        assertThat(b.storage.turns().find(cut.id()).orElseThrow().state()).isEqualTo(TurnState.INTERRUPTED);
        b.chat.awaitSent(t -> t.equals("data migrated"), WAIT);
        assertThat(b.agent.calls()).as("resumed once").hasSize(1);
        assertThat(b.agent.calls().getFirst().userMessage()).startsWith("[System note: The previous turn was interrupted");
        NodeRecord dead = b.storage.nodes().list(5).stream().filter(n -> n.id().equals("dead")).findFirst().orElseThrow();
        assertThat(dead.state()).isEqualTo(NodeState.GONE);
    }
}
