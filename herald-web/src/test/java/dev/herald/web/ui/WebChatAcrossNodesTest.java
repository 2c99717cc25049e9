package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.cluster.ClusterSettings;
import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.StoreInvariants;
import dev.herald.web.WebServer;
import dev.herald.web.WebUi;
import dev.herald.web.access.WebAccess;
import dev.herald.web.metrics.HeraldMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web chat on several nodes (issue 11, item 3): two gateways with clustering on share one store (a SQLite file,
 * as two nodes on one host do), each with its own web server. A page's event stream is open on node A while its
 * conversation's turn runs on node B: A's stream still announces B's reply, and A's transcript holds it. A turn that
 * runs on A itself is announced once, not a second time by the look at the store.
 */
class WebChatAcrossNodesTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;
    final List<WebNode> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One node: its own store connection, web server, web chat and gateway, with a scripted agent. */
    final class WebNode implements AutoCloseable {
        final String id;
        final Storage storage;
        final ScriptedAgent agent = new ScriptedAgent();
        final WebServer web = new WebServer(WebServer.Settings.ephemeral());
        final WebUi ui;
        final Gateway gateway;

        WebNode(String id) {
            this.id = id;
            Clock clock = Clock.systemUTC();
            storage = SqliteStorage.open(dir.resolve("herald.db"), clock);
            HeraldMetrics metrics = new HeraldMetrics();
            ui = WebUi.create(web, null, storage, SessionKey.KeyPolicy.defaults(), metrics, clock);
            gateway = Gateway.builder(storage, agent, new Allowlists(Map.of(ui.chat().platform(), AccessPolicy.allowAll()), false), new PlatformRegistry(List.of(ui.chat()), List.of()))
                    .settings(GatewaySettings.defaults().withDrainTimeout(Duration.ofMillis(300)))
                    .clock(clock)
                    .metrics(metrics)
                    .cluster(new ClusterSettings(true, new NodeIdentity(id, NodeIdentity.hostName(), ProcessHandle.current().pid(), null), Duration.ofSeconds(3), null))
                    .build();
            ui.attach(gateway);
            web.start();
            gateway.start(Gateway.StartOptions.normal());
        }

        String url(String path) {
            return web.baseUrl() + path;
        }

        @Override
        public void close() {
            gateway.stop(StopKind.SHUTDOWN, false);
            web.close();
        }
    }

    private WebNode node(String id) {
        WebNode n = new WebNode(id);
        nodes.add(n);
        return n;
    }

    @AfterEach
    void stopNodes() {
        nodes.forEach(WebNode::close);
        List<String> problems = StoreInvariants.afterStop(nodes.get(0).storage, List.of(), Set.of());
        nodes.forEach(n -> n.storage.close());
        assertThat(problems).as("store invariants").isEmpty();
    }

    @Test
    void aStreamOnNodeA_announcesTheReplyOfATurnThatRanOnNodeB_andAsTranscriptHoldsIt() throws Exception {
        WebNode a = node("node-a");
        WebNode b = node("node-b");
        ScriptedAgent.Hold hold = b.agent.hold("the answer from node b");
        try (Frames frames = Frames.open(http, a.url("/chat/api/stream?c=conv-across"))) {
            assertThat(frames.next().path("type").asText()).isEqualTo("hello");
            String turn = send(b, "conv-across", "m-across-1", "which node answers?");
            hold.awaitArrival(WAIT);
            hold.release();

            JsonNode reply = frames.nextOfType("reply");
            assertThat(reply.path("turn").asText()).isEqualTo(turn);
            JsonNode transcript = json(get(a, "/chat/api/transcript?c=conv-across"));
            assertThat(transcript.path("rows").findValuesAsText("text")).contains("which node answers?", "the answer from node b");
        }
        assertThat(a.agent.calls()).as("node a ran nothing").isEmpty();
        TurnRecord t = a.storage.turns().inState(TurnState.DELIVERED, 10).getFirst();
        assertThat(t.ownerNode()).isEqualTo("node-b");
    }

    @Test
    void aTurnThatRanOnTheStreamsOwnNode_isAnnouncedOnce() throws Exception {
        WebNode a = node("node-a");
        node("node-b");
        a.agent.reply("the answer from node a");
        try (Frames frames = Frames.open(http, a.url("/chat/api/stream?c=conv-local"))) {
            assertThat(frames.next().path("type").asText()).isEqualTo("hello");
            String turn = send(a, "conv-local", "m-local-1", "answer here");
            assertThat(frames.nextOfType("reply").path("text").asText()).isEqualTo("the answer from node a");
            long deadline = System.nanoTime() + Duration.ofMillis(2_500).toNanos();
            while (System.nanoTime() < deadline) {
                JsonNode f = frames.poll(100);
                assertThat(f == null ? "" : f.path("type").asText()).as("a second reply frame for turn %s", turn).isNotEqualTo("reply");
            }
        }
    }

    private String send(WebNode n, String conversation, String clientId, String text) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(n.url("/chat/api/send"))).timeout(WAIT)
                .header("Content-Type", "application/json").header(WebAccess.CSRF_HEADER, "1")
                .POST(HttpRequest.BodyPublishers.ofString("{\"conversation\":\"" + conversation + "\",\"clientId\":\"" + clientId
                        + "\",\"text\":" + WebUiFixture.quote(text) + "}")).build();
        HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(res.body()).isEqualTo(200);
        return json(res).path("turn").asText();
    }

    private HttpResponse<String> get(WebNode n, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(n.url(path))).timeout(WAIT).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> res) {
        return WebUiFixture.json(res);
    }

    /** The frames of one open event stream, read on a virtual thread. */
    static final class Frames implements AutoCloseable {
        private final BlockingQueue<JsonNode> queue = new LinkedBlockingQueue<>();
        private final HttpResponse<Stream<String>> response;

        private Frames(HttpResponse<Stream<String>> response) {
            this.response = response;
            Thread.ofVirtual().start(() -> {
                try {
                    response.body().filter(l -> l.startsWith("data: ")).forEach(l -> queue.add(parse(l.substring(6))));
                } catch (RuntimeException e) {
                    // the stream was closed
                }
            });
        }

        static Frames open(HttpClient http, String url) throws Exception {
            HttpResponse<Stream<String>> res = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                    HttpResponse.BodyHandlers.ofLines());
            assertThat(res.statusCode()).isEqualTo(200);
            return new Frames(res);
        }

        JsonNode next() throws InterruptedException {
            JsonNode n = poll(WAIT.toMillis());
            assertThat(n).as("a frame within %d s", WAIT.toSeconds()).isNotNull();
            return n;
        }

        /** Skips frames until one of {@code type}. */
        JsonNode nextOfType(String type) throws InterruptedException {
            List<String> skipped = new ArrayList<>();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                JsonNode n = poll(100);
                if (n != null && n.path("type").asText().equals(type)) {
                    return n;
                }
                if (n != null) {
                    skipped.add(n.toString());
                }
            }
            throw new AssertionError("no " + type + " frame within " + WAIT.toSeconds() + " s; frames: " + skipped);
        }

        private static JsonNode parse(String json) {
            try {
                return WebUiFixture.JSON.readTree(json);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        JsonNode poll(long millis) throws InterruptedException {
            return queue.poll(millis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            response.body().close();
        }
    }
}
