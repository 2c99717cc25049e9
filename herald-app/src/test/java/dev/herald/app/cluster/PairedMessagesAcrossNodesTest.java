package dev.herald.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.cluster.ClusterSettings;
import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Admission;
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
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two messages of one conversation sent to two nodes at the same moment (two browser tabs, a load balancer that
 * retries): on a platform whose replies go back over the request the receiving node holds open (the API server, the
 * web chat), each message is run once, in some order, and answered on the node that received it; none is left waiting
 * with nothing to start it. Three gateways share one PostgreSQL database, as in production.
 */
class PairedMessagesAcrossNodesTest {
    static final Duration ANSWERED_WITHIN = Duration.ofSeconds(30);
    static final Platform REQUESTS = Platform.of("requests");

    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    final List<Gateway> gateways = new ArrayList<>();
    final List<Storage> stores = new ArrayList<>();
    final List<LoopbackPlatform> chats = new ArrayList<>();

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

    /** Answers {@code echo: <message>} after a short random think time, so that turns of the two nodes overlap. */
    static final class EchoAgent implements Agent {
        private final Random random;

        EchoAgent(long seed) {
            this.random = new Random(seed);
        }

        @Override
        public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
            int ms;
            synchronized (random) {
                ms = random.nextInt(40);
            }
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new TurnOutcome.Interrupted("thread interrupted");
            }
            return new TurnOutcome.Final("echo: " + request.userMessage());
        }

        @Override
        public String describe() {
            return "echo agent";
        }
    }

    private void node(String id, long seed) {
        Storage storage = PostgresStorage.open(db.options(), Clock.systemUTC());
        stores.add(storage);
        LoopbackPlatform chat = new LoopbackPlatform(REQUESTS, new Capabilities(false, false, false, true, false, 4096), Clock.systemUTC());
        chats.add(chat);
        Gateway g = Gateway.builder(storage, new EchoAgent(seed), Node.ALLOW_ALL, new PlatformRegistry(List.of(new HeldHere(chat)), List.of()))
                .settings(GatewaySettings.defaults().withDrainTimeout(Duration.ofSeconds(5)).withInterruptGrace(Duration.ofSeconds(2)))
                .clock(Clock.systemUTC())
                .metrics(GatewayMetrics.NONE)
                .cluster(new ClusterSettings(true, new NodeIdentity(id, NodeIdentity.hostName(), ProcessHandle.current().pid(), null), Duration.ofSeconds(3), null))
                .build();
        gateways.add(g);
        g.start(Gateway.StartOptions.normal());
    }

    @AfterEach
    void stop() {
        gateways.forEach(g -> g.stop(StopKind.SHUTDOWN, false));
        stores.forEach(Storage::close);
    }

    @Test
    void twoMessagesOfOneSessionOnTwoNodesAtOnce_areEachAnsweredOnce() throws Exception {
        for (int i = 0; i < 3; i++) {
            node("node-" + i, 17 + i);
        }
        SessionSource erin = new SessionSource(REQUESTS, "erin", ChatType.DM, "erin", null, null, null);
        Random random = new Random(5);
        ExecutorService senders = Executors.newFixedThreadPool(2);
        List<String> sentTexts = new ArrayList<>();
        try {
            for (int n = 0; n < 40; n++) {
                int pair = n;
                int x = random.nextInt(3);
                int y = (x + 1 + random.nextInt(2)) % 3;
                String first = "p" + pair + " to node " + x;
                String second = "p" + pair + " to node " + y;
                CyclicBarrier together = new CyclicBarrier(2);
                Future<Admission> a = senders.submit(() -> {
                    together.await();
                    return chats.get(x).say(erin, first, "r-" + pair + "-a");
                });
                Future<Admission> b = senders.submit(() -> {
                    together.await();
                    return chats.get(y).say(erin, second, "r-" + pair + "-b");
                });
                assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(Admission.ACCEPTED);
                assertThat(b.get(10, TimeUnit.SECONDS)).isEqualTo(Admission.ACCEPTED);
                sentTexts.add(first);
                sentTexts.add(second);
                chats.get(x).awaitSent(t -> t.equals("echo: " + first), ANSWERED_WITHIN);
                chats.get(y).awaitSent(t -> t.equals("echo: " + second), ANSWERED_WITHIN);
            }
        } finally {
            senders.shutdownNow();
        }
        Map<String, Long> replies = chats.stream().flatMap(c -> c.sent().stream()).collect(Collectors.groupingBy(
                LoopbackPlatform.Sent::text, TreeMap::new, Collectors.counting()));
        for (String text : sentTexts) {
            assertThat(replies.get("echo: " + text)).as("replies to '%s'", text).isEqualTo(1L);
        }
        List<TurnRecord> open = new ArrayList<>();
        for (TurnState s : List.of(TurnState.RECEIVED, TurnState.RUNNING, TurnState.AWAITING_DELIVERY)) {
            open.addAll(stores.get(0).turns().inState(s, 100));
        }
        assertThat(open).as("turns left open").isEmpty();
    }
}
