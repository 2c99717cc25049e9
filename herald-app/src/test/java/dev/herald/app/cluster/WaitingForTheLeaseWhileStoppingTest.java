package dev.herald.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.cluster.ClusterSettings;
import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A turn whose reply goes back where it was received (API server, web chat), waiting on node B for node A to be done
 * with the session (or behind the session's running turn on B), when B stops (a handover): on a platform nobody reads later (the API server: its request is
 * answered 503 "retry"), the turn is cancelled, so it never runs on A as well (a reply to no one, and the client's
 * retry would run it twice), and that retry, with the same request id, is answered; on an interactive one (the web
 * chat: the page reads the transcript), it stays waiting and A runs it once.
 */
class WaitingForTheLeaseWhileStoppingTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final Platform REQUESTS = Platform.of("requests");

    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    final List<Gateway> gateways = new ArrayList<>();
    final List<Storage> stores = new ArrayList<>();

    /** A platform whose turns run on the node that received them, like the API server or the web chat. */
    record HeldHere(LoopbackPlatform inner) implements PlatformAdapter {
        @Override
        public Platform platform() {
            return inner.platform();
        }

        @Override
        public Capabilities capabilities() {
            return inner.capabilities().with(Capabilities.Delivery.WHERE_RECEIVED);
        }

        @Override
        public void start(InboundSink sink) {
            inner.start(sink);
        }

        @Override
        public SendResult send(OutboundMessage message) {
            return inner.send(message);
        }


        @Override
        public void close() {
            inner.close();
        }
    }

    private LoopbackPlatform node(String id, ScriptedAgent agent, boolean interactive) {
        Storage storage = PostgresStorage.open(db.options(), Clock.systemUTC());
        stores.add(storage);
        LoopbackPlatform chat = new LoopbackPlatform(REQUESTS, new Capabilities(interactive, false, false, true, false, 4096), Clock.systemUTC());
        Gateway g = Gateway.builder(storage, agent, Node.ALLOW_ALL, new PlatformRegistry(List.of(new HeldHere(chat)), List.of()))
                .settings(GatewaySettings.defaults().withDrainTimeout(Duration.ofSeconds(5)).withInterruptGrace(Duration.ofSeconds(2)))
                .clock(Clock.systemUTC())
                .metrics(GatewayMetrics.NONE)
                .cluster(new ClusterSettings(true, new NodeIdentity(id, NodeIdentity.hostName(), ProcessHandle.current().pid(), null), Duration.ofSeconds(3), null))
                .build();
        gateways.add(g);
        g.start(Gateway.StartOptions.normal());
        return chat;
    }

    /** The stored turn of the message {@code text}, whatever its state. */
    private static TurnRecord storedTurn(Storage storage, String text) {
        List<TurnRecord> turns = new ArrayList<>();
        for (TurnState s : TurnState.values()) {
            turns.addAll(storage.turns().inState(s, 100));
        }
        return turns.stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @AfterEach
    void stop() {
        gateways.forEach(g -> g.stop(StopKind.SHUTDOWN, false));
        stores.forEach(Storage::close);
    }

    @ParameterizedTest(name = "interactive {0}")
    @ValueSource(booleans = {false, true})
    void aNodeStoppingWhileItsTurnWaitsForTheLease_cancelsItWhereNobodyReadsLater_elseTheHolderRunsItOnce(boolean interactive)
            throws Exception {
        ScriptedAgent agentA = new ScriptedAgent();
        ScriptedAgent agentB = new ScriptedAgent();
        LoopbackPlatform a = node("node-a", agentA, interactive);
        LoopbackPlatform b = node("node-b", agentB, interactive);
        SessionSource carol = new SessionSource(REQUESTS, "carol", ChatType.DM, "carol", null, null, null);
        ScriptedAgent.Hold first = agentA.hold("first answer");
        a.say(carol, "first question", "q-1");
        first.awaitArrival(WAIT);
        agentA.reply("second answer");

        b.say(carol, "second question", "q-2");
        Thread.sleep(1_000); // b waits for a to be done with the session
        gateways.get(1).stop(StopKind.HANDOVER, false);
        first.release();
        a.awaitSent(t -> t.equals("first answer"), WAIT);
        Thread.sleep(5_000); // a gone receiver's waiting turn is picked up within a few seconds

        TurnRecord second = storedTurn(stores.get(0), "second question");
        assertThat(agentB.calls()).as("b ran nothing").isEmpty();
        if (interactive) {
            assertThat(agentA.calls()).extracting(r -> r.userMessage()).containsExactly("first question", "second question");
            assertThat(second.state()).isEqualTo(TurnState.DELIVERED);
        } else {
            assertThat(agentA.calls()).extracting(r -> r.userMessage()).containsExactly("first question");
            assertThat(second.state()).isEqualTo(TurnState.CANCELLED);

            // the client's retry carries the same request id: it is a new message, not one delivered before
            a.say(carol, "second question", "q-2");
            a.awaitSent(t -> t.equals("second answer"), WAIT);
            assertThat(agentA.calls()).extracting(r -> r.userMessage()).containsExactly("first question", "second question");
        }
    }

    /**
     * The other way a turn is left unstarted by a stopping node: it waits behind the session's running turn on the same
     * node. The running turn finishes within the drain; the waiting one never starts there. Where its request is answered
     * 503 "retry" it is cancelled (the client sends it again; run on node B as well, it would run twice); on an
     * interactive platform node B runs it once.
     */
    @ParameterizedTest(name = "interactive {0}")
    @ValueSource(booleans = {false, true})
    void aTurnQueuedBehindTheRunningOneWhenItsNodeStops_isWithdrawnWhereNobodyReadsLater_elseAnotherNodeRunsItOnce(boolean interactive)
            throws Exception {
        ScriptedAgent agentA = new ScriptedAgent();
        ScriptedAgent agentB = new ScriptedAgent();
        LoopbackPlatform a = node("node-a", agentA, interactive);
        LoopbackPlatform b = node("node-b", agentB, interactive);
        SessionSource dan = new SessionSource(REQUESTS, "dan", ChatType.DM, "dan", null, null, null);
        ScriptedAgent.Hold first = agentA.hold("first answer");
        agentB.reply("second answer");
        a.say(dan, "first question", "q-1");
        first.awaitArrival(WAIT);
        a.say(dan, "second question", "q-2"); // queued behind the first on node a

        var stopping = java.util.concurrent.CompletableFuture.runAsync(() -> gateways.get(0).stop(StopKind.HANDOVER, false));
        Thread.sleep(500); // node a drains: it takes nothing new, and waits for the running turn
        first.release();
        stopping.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        Thread.sleep(5_000); // a gone receiver's waiting turn is picked up within a few seconds

        TurnRecord second = storedTurn(stores.get(1), "second question");
        assertThat(agentA.calls()).extracting(r -> r.userMessage()).containsExactly("first question");
        if (interactive) {
            assertThat(agentB.calls()).extracting(r -> r.userMessage()).containsExactly("second question");
            assertThat(second.state()).isEqualTo(TurnState.DELIVERED);
        } else {
            assertThat(agentB.calls()).as("b ran nothing").isEmpty();
            assertThat(second.state()).isEqualTo(TurnState.CANCELLED);

            // the client's retry carries the same request id: it is a new message, not one delivered before
            b.say(dan, "second question", "q-2");
            b.awaitSent(t -> t.equals("second answer"), WAIT);
            assertThat(agentB.calls()).extracting(r -> r.userMessage()).containsExactly("second question");
        }
    }
}
