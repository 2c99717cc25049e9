package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.ChatType;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import dev.herald.web.WebServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A streaming API client that leaves while its turn's {@code http_get} downloads from a slow server, with the API's
 * production keep-alive timing (first keep-alive at 15 s): a stateless turn's download is stopped within seconds, as
 * /stop stops it in a chat; a session turn belongs to its session, so its download runs on after the client left and
 * {@code /stop} in that session ends it.
 *
 * <p>Real parts: the agent with the built-in http_get (egress opened for 127.0.0.5 only, as the tool's own tests do),
 * the model client on the scripted model server, the API on Jetty on loopback, the gateway on SQLite for the session,
 * and a download server on 127.0.0.5 that sends a byte every 100 ms and notes when its connection is closed.
 */
class LeaveDuringDownloadTest {
    private static final String HOST = "127.0.0.5";
    /** The stop comes within a keep-alive or two (about 2 s); the bound leaves room for a busy machine, far under 15 s. */
    private static final Duration STOPPED_WITHIN = Duration.ofSeconds(6);

    @TempDir
    Path dir;
    private final FakeModelServer model = FakeModelServer.start();
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "small-model").withMaxRetries(0));
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger apiLog = (Logger) LoggerFactory.getLogger(ApiServerPlatform.class);
    private SlowDownload download;
    private ClientLeavesTest.RecordingAgent agent;
    private GatewayHarness kit;
    private WebServer web;

    @BeforeEach
    void setUp() throws Exception {
        download = SlowDownload.start();
        model.defaultReply(this::script);
        ToolSettings tools = ToolSettings.defaults(dir.resolve("work")).withTools(List.of("http_get")).withHttpAllow(List.of(HOST + "/32"));
        agent = new ClientLeavesTest.RecordingAgent(new ModelAgent(client, AgentSettings.DEFAULT,
                new ToolRegistry(tools, BuiltinTools.all(tools), List.of())));
        logs.start();
        apiLog.addAppender(logs);
        Clock clock = Clock.systemUTC();
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        ApiServerPlatform api = new ApiServerPlatform(ApiFixture.settings(), agent, web, clock); // production keep-alive timing
        Gateway gateway = kit.gateway(agent, new Allowlists(Map.of(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll()), false),
                List.of(api), List.of(), GatewaySettings.defaults(), GatewayMetrics.NONE);
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    @AfterEach
    void tearDown() {
        apiLog.detachAppender(logs);
        download.finish();
        try {
            kit.close();
        } finally {
            download.close();
            client.close();
            model.close();
            http.close();
        }
    }

    /** Downloads the file when asked to; answers a tool result or anything else with text. */
    private Reply script(RecordedRequest r) {
        RecordedRequest.Message last = r.messages().getLast();
        if (last.role().equals("user") && last.content().startsWith("download")) {
            return Reply.toolCalls(new Reply.ToolCall("call_dl", "http_get", "{\"url\":\"" + download.url() + "\"}"));
        }
        return Reply.text(last.role().equals("tool") ? "downloaded" : "hello again");
    }

    @Test
    void streamedCompletion_clientLeavesDuringASlowDownload_theDownloadIsStoppedWithinSeconds() throws Exception {
        Socket socket = post("download the file", null);
        download.awaitStarted();
        socket.close();
        long left = System.nanoTime();

        long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(download.closedAt().get(30, TimeUnit.SECONDS) - left);
        System.out.println("leave-during-download: the download's connection closed " + closedAfterMs + " ms after the client left");
        assertThat(closedAfterMs).as("ms from the client leaving to the download being stopped").isLessThan(STOPPED_WITHIN.toMillis());
        await().atMost(Duration.ofSeconds(10)).until(() -> !agent.outcomes.isEmpty());
        assertThat(agent.outcomes.getFirst()).isEqualTo(new TurnOutcome.Interrupted("client disconnected"));
        await().atMost(Duration.ofSeconds(5)).until(() -> logs.list.stream()
                .anyMatch(e -> e.getFormattedMessage().contains("/v1/chat/completions DISCONNECTED (stateless, stream=true")));
    }

    @Test
    void sessionStreamedCompletion_clientLeavesDuringASlowDownload_theTurnRunsOnUntilStopInItsSession() throws Exception {
        SessionKey key = SessionKey.of(new SessionSource(ApiServerPlatform.PLATFORM, "dl-1", ChatType.DM, ApiServerPlatform.USER_ID, null,
                null, null));
        Socket socket = post("download the file", "dl-1");
        download.awaitStarted();
        socket.close();

        // longer than a stateless turn takes to stop: this one belongs to its session and runs on
        Thread.sleep(STOPPED_WITHIN.toMillis());
        assertThat(download.closedAt()).as("the download still runs after the client left").isNotDone();
        assertThat(kit.storage().turns().latestStarted(key).orElseThrow().state()).isEqualTo(TurnState.RUNNING);

        HttpResponse<String> stop = http.send(request("/stop", "dl-1"), HttpResponse.BodyHandlers.ofString());
        long stopped = System.nanoTime();

        assertThat(stop.statusCode()).isEqualTo(200);
        long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(download.closedAt().get(10, TimeUnit.SECONDS) - stopped);
        assertThat(closedAfterMs).as("ms from /stop to the download being stopped").isLessThan(STOPPED_WITHIN.toMillis());
        await().atMost(Duration.ofSeconds(10)).until(() -> kit.storage().turns().latestStarted(key)
                .map(t -> t.state() == TurnState.INTERRUPTED).orElse(false));
    }

    /** Sends a streamed completion on a raw socket, which the caller closes without reading anything. */
    private Socket post(String text, String session) throws IOException {
        int port = URI.create(web.baseUrl()).getPort();
        byte[] body = ApiFixture.body(text, true).getBytes(StandardCharsets.UTF_8);
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer " + ApiFixture.KEY
                + "\r\nContent-Type: application/json\r\n" + (session == null ? "" : "X-Herald-Session-Id: " + session + "\r\n")
                + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return socket;
    }

    private HttpRequest request(String text, String session) {
        return HttpRequest.newBuilder(URI.create(web.baseUrl() + "/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + ApiFixture.KEY).header("Content-Type", "application/json")
                .header("X-Herald-Session-Id", session).POST(HttpRequest.BodyPublishers.ofString(ApiFixture.body(text, false))).build();
    }

    /** A server on 127.0.0.5 whose one file takes half a minute: a byte every 100 ms; it notes when the reader hangs up. */
    static final class SlowDownload implements AutoCloseable {
        private final HttpServer server;
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);
        private final CompletableFuture<Long> closedAt = new CompletableFuture<>();

        private SlowDownload(HttpServer server) {
            this.server = server;
        }

        static SlowDownload start() throws IOException {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(HOST), 0), 0);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            SlowDownload download = new SlowDownload(server);
            server.createContext("/file.bin", download::serve);
            server.start();
            return download;
        }

        String url() {
            return "http://" + HOST + ":" + server.getAddress().getPort() + "/file.bin";
        }

        private void serve(HttpExchange exchange) throws IOException {
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, 0);
            started.countDown();
            try (OutputStream body = exchange.getResponseBody()) {
                for (int i = 0; i < 300 && finish.getCount() > 0; i++) {
                    body.write('x');
                    body.flush();
                    finish.await(100, TimeUnit.MILLISECONDS);
                }
            } catch (IOException e) {
                closedAt.complete(System.nanoTime());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void awaitStarted() throws InterruptedException {
            if (!started.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the download did not start within 30 s");
            }
        }

        /** When the reader closed the connection (System.nanoTime()). */
        CompletableFuture<Long> closedAt() {
            return closedAt;
        }

        /** Ends the file at once (the test is over). */
        void finish() {
            finish.countDown();
        }

        @Override
        public void close() {
            finish();
            server.stop(0);
        }
    }
}
