package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolResult;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ModelOption;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import dev.herald.web.WebServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A client that leaves a stateless request while one of Herald's own tools runs: the tool sees the turn's interrupt
 * within seconds, the turn ends interrupted, the operator's log says the client disconnected, and the next request
 * is answered. Non-streamed (chat completions and the Responses API) and streamed before its first byte.
 *
 * <p>Real parts: the profile agent on the testkit's scripted model server, a tool this test registers (it waits for
 * the turn's interrupt, at most a minute), Jetty on loopback, clients that close their socket. The first keep-alive
 * comes after {@value #FIRST_KEEP_ALIVE_MS} ms here (15 s in production); then one every second, as in production.
 */
class ClientLeavesTest {
    private static final long FIRST_KEEP_ALIVE_MS = 200;
    /** Detection takes one or two keep-alives (about 2 s); the bound is generous for a busy machine. */
    private static final Duration NOTICED_WITHIN = Duration.ofSeconds(8);

    @TempDir
    Path workspaces;

    private FakeModelServer model;
    private OpenAiCompatibleClient client;
    private SlowLookup tool;
    private RecordingAgent agent;
    private WebServer web;
    private ApiServerPlatform api;
    private ListAppender<ILoggingEvent> logs;
    private Logger apiLog;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Calls the slow tool when asked to look something up; answers a tool result or anything else with text. */
    static Reply script(RecordedRequest r) {
        RecordedRequest.Message last = r.messages().getLast();
        if (last.role().equals("user") && last.content().startsWith("look up")) {
            return Reply.toolCalls(new Reply.ToolCall("call_slow", SlowLookup.NAME, "{}"));
        }
        return Reply.text(last.role().equals("tool") ? "found: " + last.content() : "hello again");
    }

    @BeforeEach
    void setUp() throws Exception {
        model = FakeModelServer.start();
        model.defaultReply(ClientLeavesTest::script);
        client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "small-model").withMaxRetries(0));
        tool = new SlowLookup();
        ToolRegistry tools = new ToolRegistry(ToolSettings.defaults(workspaces).withTools(List.of(SlowLookup.NAME)), List.of(tool), List.of());
        agent = new RecordingAgent(new ProfileAgent(List.of(new ProfileAgent.Profile(ProfileAgent.DEFAULT, client, AgentSettings.DEFAULT)),
                tools, p -> Optional.empty(), ModelChoiceStore.inMemory()));
        apiLog = (Logger) LoggerFactory.getLogger(ApiServerPlatform.class);
        logs = new ListAppender<>();
        logs.start();
        apiLog.addAppender(logs);
        web = new WebServer(WebServer.Settings.ephemeral());
        api = new ApiServerPlatform(ApiFixture.settings(), agent, web, Clock.systemUTC(), Duration.ofMillis(FIRST_KEEP_ALIVE_MS));
        ScriptedGateway gateway = new ScriptedGateway();
        gateway.attach(api);
        web.start();
        api.start(gateway);
    }

    @AfterEach
    void tearDown() {
        apiLog.detachAppender(logs);
        tool.abandon();
        api.close();
        web.close();
        client.close();
        model.close();
        http.close();
    }

    @Test
    void nonStreamedCompletion_clientClosesWhileAToolRuns_toolInterruptedAndTheNextRequestAnswered() throws Exception {
        Socket socket = post("/v1/chat/completions", ApiFixture.body("look up the weather", false));
        assertThat(tool.started.await(20, TimeUnit.SECONDS)).as("the tool started").isTrue();
        socket.close();
        long closed = System.nanoTime();

        assertInterruptedWithin(closed, "/v1/chat/completions DISCONNECTED (stateless, stream=false");
        HttpResponse<String> next = send("/v1/chat/completions", ApiFixture.body("say hello", false));
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(ApiFixture.json(next.body()).path("choices").path(0).path("message").path("content").asText()).isEqualTo("hello again");
        assertThat(model.requests()).as("nothing asked the model to go on with an abandoned tool result").hasSize(2);
    }

    @Test
    void nonStreamedResponses_clientClosesAfterTheFirstSpace_toolInterrupted() throws Exception {
        HttpResponse<InputStream> r = http.send(request("/v1/responses",
                "{\"model\":\"herald\",\"input\":\"look up the tides\"}"), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).as("committed before the turn ended").isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(r.body().read()).as("the first byte is a keep-alive space").isEqualTo(' ');
        r.body().close();
        long closed = System.nanoTime();

        assertInterruptedWithin(closed, "/v1/responses DISCONNECTED (stateless, stream=false");
        HttpResponse<String> next = send("/v1/responses", "{\"model\":\"herald\",\"input\":\"say hello\"}");
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(ApiFixture.json(next.body()).path("output").path(0).path("content").path(0).path("text").asText()).isEqualTo("hello again");
    }

    @Test
    void streamedCompletion_clientClosesBeforeTheFirstByte_toolInterrupted() throws Exception {
        Socket socket = post("/v1/chat/completions", ApiFixture.body("look up the news", true));
        assertThat(tool.started.await(20, TimeUnit.SECONDS)).as("the tool started").isTrue();
        socket.close();
        long closed = System.nanoTime();

        assertInterruptedWithin(closed, "/v1/chat/completions DISCONNECTED (stateless, stream=true");
    }

    /** The user's and operator's view: the tool saw the interrupt, the turn ended interrupted, the log names the leave. */
    private void assertInterruptedWithin(long closedNanos, String logLine) throws Exception {
        String reason = tool.interruptedBecause.get(NOTICED_WITHIN.toMillis() + 2_000, TimeUnit.MILLISECONDS);
        long tookMs = (tool.sawInterruptNanos - closedNanos) / 1_000_000;
        System.out.println("client-leaves: the tool saw the interrupt " + tookMs + " ms after the client closed");
        assertThat(reason).isEqualTo("client disconnected");
        assertThat(tookMs).as("ms from the client closing to the tool seeing the interrupt").isLessThan(NOTICED_WITHIN.toMillis());
        await().atMost(Duration.ofSeconds(10)).until(() -> !agent.outcomes.isEmpty());
        assertThat(agent.outcomes.getFirst()).isEqualTo(new TurnOutcome.Interrupted("client disconnected"));
        await().atMost(Duration.ofSeconds(5)).until(() -> logs.list.stream().anyMatch(e -> e.getFormattedMessage().contains(logLine)));
    }

    /** Sends a request on a raw socket, which the caller closes without reading anything. */
    private Socket post(String path, String body) throws Exception {
        int port = java.net.URI.create(web.baseUrl()).getPort();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer " + ApiFixture.KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }
    private HttpRequest request(String path, String body) {
        return HttpRequest.newBuilder(java.net.URI.create(web.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + ApiFixture.KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private HttpResponse<String> send(String path, String body) throws Exception {
        return http.send(request(path, body), HttpResponse.BodyHandlers.ofString());
    }

    /** A safe tool that waits for the turn's interrupt (at most a minute) and says when it saw it. */
    static final class SlowLookup implements Tool {
        static final String NAME = "slow_lookup";
        final CountDownLatch started = new CountDownLatch(1);
        final CompletableFuture<String> interruptedBecause = new CompletableFuture<>();
        private final CountDownLatch done = new CountDownLatch(1);
        volatile long sawInterruptNanos;

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "looks something up, slowly";
        }

        @Override
        public JsonNode parameters() {
            return Args.JSON.createObjectNode().put("type", "object").set("properties", Args.JSON.createObjectNode());
        }

        @Override
        public Danger danger(JsonNode args, ToolContext context) {
            return Danger.NONE;
        }

        @Override
        public String summarize(JsonNode args) {
            return "slow lookup";
        }

        @Override
        public ToolResult execute(JsonNode args, ToolContext context) {
            started.countDown();
            Interrupt interrupt = context.interrupt();
            interrupt.onRaise(done::countDown);
            try {
                if (!done.await(60, TimeUnit.SECONDS) || !interrupt.isRaised()) {
                    return ToolResult.ok("nothing found in a minute");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sawInterruptNanos = System.nanoTime();
            interruptedBecause.complete(interrupt.reason());
            return ToolResult.interrupted("stopped: " + interrupt.reason());
        }

        /** Lets a call still waiting end (the test is over). */
        void abandon() {
            done.countDown();
        }
    }

    /** The profile agent, with the outcome of every turn kept. */
    static final class RecordingAgent implements Agent {
        final List<TurnOutcome> outcomes = new CopyOnWriteArrayList<>();
        private final Agent inner;

        RecordingAgent(Agent inner) {
            this.inner = inner;
        }

        @Override
        public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
            TurnOutcome outcome = inner.runTurn(request, listener, interrupt);
            outcomes.add(outcome);
            return outcome;
        }

        @Override
        public String describe() {
            return inner.describe();
        }

        @Override
        public List<ModelOption> models() {
            return inner.models();
        }
    }
}
