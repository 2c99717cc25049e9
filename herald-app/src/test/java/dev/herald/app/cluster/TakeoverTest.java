package dev.herald.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Waiting turns move to the node that may run them (issue 11, item 2): a message that reached a node for a session
 * another live node holds runs on the holder, after the one before it; messages a node that is gone left waiting are
 * run once, by one survivor, in order.
 */
class TakeoverTest {
    static final Duration WAIT = Duration.ofSeconds(20);

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
    void aMessageForASessionAnotherNodeHolds_runsOnTheHolder_afterItsRunningTurn() {
        Node a = node("a");
        Node b = node("b");
        SessionSource carol = Node.dm("carol");
        ScriptedAgent.Hold first = a.agent.hold("first answer");
        a.chat.say(carol, "first question", "m-1");
        first.awaitArrival(WAIT);

        b.chat.say(carol, "second question", "m-2");
        a.agent.reply("second answer");
        first.release();

        a.chat.awaitSent(t -> t.equals("second answer"), WAIT);
        assertThat(a.chat.sent()).extracting(s -> s.text()).containsExactly("first answer", "second answer");
        assertThat(b.agent.calls()).as("b handed it to the session's holder").isEmpty();
        assertThat(a.agent.calls()).extracting(r -> r.userMessage()).containsExactly("first question", "second question");
    }

    @Test
    void messagesADeadNodeLeftWaiting_runOnceOnOneSurvivor_inOrder() throws Exception {
        PostgresStorage left = PostgresStorage.open(db.options(), Clock.systemUTC());
        left.nodes().register(new NodeIdentity("dead", "elsewhere", 1, null), Duration.ofMillis(500), null);
        Turns deadTurns = new Turns(left.turns(), Turns.Observer.NONE, "dead");
        SessionSource dave = Node.dm("dave");
        for (int i = 1; i <= 3; i++) {
            deadTurns.receive(SessionKey.of(dave), MessageEvent.text(dave, "message " + i, "d-" + i, Instant.now())).orElseThrow();
        }
        left.close();
        Node b = node("b");
        Node c = node("c");
        b.agent.reply("ok");
        c.agent.reply("ok");

        long deadline = System.nanoTime() + WAIT.toNanos();
        while (b.agent.calls().size() + c.agent.calls().size() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        Thread.sleep(1_500);

        List<String> asked = new ArrayList<>();
        b.agent.calls().forEach(r -> asked.add(r.userMessage()));
        c.agent.calls().forEach(r -> asked.add(r.userMessage()));
        assertThat(asked).as("each once").containsExactlyInAnyOrder("message 1", "message 2", "message 3");
        assertThat(b.agent.calls().isEmpty() || c.agent.calls().isEmpty()).as("one survivor runs the session").isTrue();
        Node runner = b.agent.calls().isEmpty() ? c : b;
        assertThat(runner.agent.calls()).extracting(r -> r.userMessage()).containsExactly("message 1", "message 2", "message 3");
        assertThat(runner.storage.turns().inState(TurnState.DELIVERED, 10)).extracting(TurnRecord::ownerNode).containsOnly(runner.id);
    }
}
