package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.herald.core.gateway.StopKind;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a chat user can make the agent fetch, end to end in one JVM: the real wiring (SQLite, gateway, model agent
 * with http_get, API server with the admin pages) and a scripted model that asks for {@code http_get}. Targets are
 * Herald's own admin API, other loopback ports and spellings, and a lab server on 127.0.0.5 that some tests
 * allow-list; every address is loopback (the private and metadata ranges are tested on the classifier).
 */
class ToolReachTest {
    private static final String LAB = "127.0.0.5";
    private static final String SECRET = "banana-42-secret";

    @TempDir
    Path home;
    final FakeModelServer model = FakeModelServer.start();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    InProcessHerald herald;
    HttpServer lab;
    final CountDownLatch slowArrived = new CountDownLatch(1);

    private void start(String httpAllow) throws Exception {
        start(httpAllow, "");
    }

    private void start(String httpAllow, String moreYaml) throws Exception {
        String yaml = "model:\n  base_url: " + model.baseUrl() + "\n  name: test-model\n  connect_timeout_seconds: 2\n"
                + "  idle_timeout_seconds: 10\n  max_retries: 0\n"
                + "platforms:\n  api_server:\n    port: {port}\n    request_timeout_seconds: 30\n"
                + "agent:\n  tools: [http_get]\n  http_timeout_seconds: 20\n" + (httpAllow == null ? "" : "  http_allow: " + httpAllow + "\n")
                + moreYaml;
        herald = InProcessHerald.in(home).start(yaml);
    }

    private void startLab() throws IOException {
        lab = HttpServer.create(new InetSocketAddress(InetAddress.getByName(LAB), 0), 0);
        lab.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        lab.createContext("/to-herald", exchange -> {
            exchange.getResponseHeaders().set("Location", herald("/admin/api/transcript?key=api_server:dm:private"));
            respond(exchange, 302, "moved");
        });
        lab.createContext("/slow", exchange -> {
            slowArrived.countDown();
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            respond(exchange, 200, "late");
        });
        lab.start();
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        if (lab != null) {
            lab.stop(0);
        }
        model.close();
    }

    private String herald(String path) {
        return herald.baseUrl() + path;
    }

    private String labUrl(String path) {
        return "http://" + LAB + ":" + lab.getAddress().getPort() + path;
    }

    private HttpResponse<String> post(String text, String session) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(herald("/v1/chat/completions"))).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(40)).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"messages\":[{\"role\":\"user\",\"content\":" + HeraldProcess.JSON.writeValueAsString(text) + "}]}"));
        if (session != null) {
            b.header("X-Herald-Session-Id", session);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** One stateless turn in which the model fetches {@code url}; returns what the tool answered the model. */
    private String fetchThroughTheAgent(String url) throws Exception {
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("call_get", "http_get", "{\"url\":\"" + url + "\"}")), Reply.text("fetched"));
        assertThat(HeraldProcess.answer(post("please fetch " + url, null))).isEqualTo("fetched");
        List<RecordedRequest.Message> messages = model.lastRequest().messages();
        RecordedRequest.Message tool = messages.getLast();
        assertThat(tool.role()).isEqualTo("tool");
        return tool.content();
    }

    /** A session whose transcript holds a secret that only its own caller should ever read. */
    private void plantASecretInAnotherSession() throws Exception {
        model.enqueue(Reply.text("noted"));
        assertThat(HeraldProcess.answer(post("my locker code is " + SECRET, "private"))).isEqualTo("noted");
    }

    @Test
    void httpGet_towardHeraldAndOtherLoopbackTargets_isRefusedAndTheModelReadsWhy() throws Exception {
        start(null);
        plantASecretInAnotherSession();
        int modelPort = model.baseUrl().getPort();

        assertThat(fetchThroughTheAgent(herald("/admin/api/transcript?key=api_server:dm:private")))
                .isEqualTo("Error: refused: 127.0.0.1 is a loopback address; add it to agent.http_allow to allow it");
        assertThat(fetchThroughTheAgent("http://127.0.0.1:" + modelPort + "/v1/models"))
                .isEqualTo("Error: refused: 127.0.0.1 is a loopback address; add it to agent.http_allow to allow it");
        assertThat(fetchThroughTheAgent("http://localhost:" + herald.port() + "/admin/api/status"))
                .startsWith("Error: refused: localhost resolves to ").contains("a loopback address; add localhost or ");
        assertThat(fetchThroughTheAgent("http://[::1]:" + herald.port() + "/admin/api/status"))
                .isEqualTo("Error: refused: ::1 is a loopback address; add it to agent.http_allow to allow it");
        assertThat(fetchThroughTheAgent("http://127.0.0.2:" + herald.port() + "/admin/api/status"))
                .isEqualTo("Error: refused: 127.0.0.2 is a loopback address; add it to agent.http_allow to allow it");
        assertThat(fetchThroughTheAgent("http://2130706433:" + herald.port() + "/admin/api/status"))
                .isEqualTo("Error: refused: 127.0.0.1 is a loopback address (written 2130706433); add it to agent.http_allow to allow it");
        assertThat(model.allRequests()).filteredOn(r -> !r.messages().isEmpty() && r.messages().getLast().role().equals("tool"))
                .allSatisfy(r -> assertThat(r.messages().getLast().content()).doesNotContain(SECRET));
    }

    @Test
    void httpGet_redirectFromAnAllowListedLabServerToHerald_isRefusedAtTheHop() throws Exception {
        startLab();
        start("[" + LAB + "/32]");
        plantASecretInAnotherSession();

        assertThat(fetchThroughTheAgent(labUrl("/to-herald"))).isEqualTo("Error: refused: 127.0.0.1 is a loopback address; add it to "
                + "agent.http_allow to allow it (" + labUrl("/to-herald") + " redirected to "
                + herald("/admin/api/transcript?key=api_server:dm:private") + ")");
    }

    @Test
    void httpGet_withAllOfLoopbackAllowed_heraldsOwnRoutesStillRefuseTheTool() throws Exception {
        start("[127.0.0.0/8, \"::1\"]");
        plantASecretInAnotherSession();

        String transcript = fetchThroughTheAgent(herald("/admin/api/transcript?key=api_server:dm:private"));
        String models = fetchThroughTheAgent(herald("/v1/models"));
        String metrics = fetchThroughTheAgent("http://localhost:" + herald.port() + "/metrics");

        assertThat(transcript).startsWith("HTTP 403, application/json").contains("tool_origin").doesNotContain(SECRET);
        assertThat(models).startsWith("HTTP 403, application/json").contains("tool_origin");
        assertThat(metrics).startsWith("HTTP 403, application/json").contains("tool_origin");
    }

    @Test
    void stop_duringASlowHttpGet_endsTheTurnWithinTwoSecondsAndTheNextMessageIsAnswered() throws Exception {
        startLab();
        start("[" + LAB + "/32]");
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("call_slow", "http_get", "{\"url\":\"" + labUrl("/slow") + "\"}")));
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
            try {
                return post("fetch the slow page", "work");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(slowArrived.await(10, TimeUnit.SECONDS)).as("the tool reached the slow page").isTrue();
        assertThat(herald.wiring().gateway().status().activeTurns()).isEqualTo(1);

        long stopAt = System.nanoTime();
        assertThat(HeraldProcess.answer(post("/stop", "work"))).isNotBlank();
        await().atMost(Duration.ofSeconds(5)).until(() -> herald.wiring().gateway().status().activeTurns() == 0);
        long stoppedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopAt);

        model.enqueue(Reply.text("still here"));
        assertThat(HeraldProcess.answer(post("are you there?", "work"))).isEqualTo("still here");
        assertThat(stoppedMs).as("ms from /stop to the turn's end").isLessThan(2_000);
        first.cancel(true);
    }

    @Test
    void clientDisconnect_duringAStreamedStatelessTurnsSlowHttpGet_abortsTheFetchWithinSeconds() throws Exception {
        try (ServerSocket hang = new ServerSocket(0, 5, InetAddress.getByName(LAB))) {
            start("[" + LAB + "/32]");
            CompletableFuture<Long> aborted = new CompletableFuture<>();
            CountDownLatch requested = new CountDownLatch(1);
            Thread.ofVirtual().start(() -> {
                try (var socket = hang.accept(); var in = socket.getInputStream()) {
                    byte[] buffer = new byte[8192];
                    while (in.read(buffer) > 0) {
                        requested.countDown(); // the request arrived; now answer nothing and wait for the client to give up
                    }
                    aborted.complete(System.nanoTime());
                } catch (IOException e) {
                    aborted.complete(System.nanoTime());
                }
            });
            String url = "http://" + LAB + ":" + hang.getLocalPort() + "/hang";
            model.enqueue(Reply.stream("Let me look. ").withToolCalls(new Reply.ToolCall("call_hang", "http_get", "{\"url\":\"" + url + "\"}")),
                    Reply.text("never asked"));
            HttpRequest request = HttpRequest.newBuilder(URI.create(herald("/v1/chat/completions"))).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"look\"}]}"))
                    .build();
            HttpResponse<java.io.InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            var lines = new java.io.BufferedReader(new java.io.InputStreamReader(response.body(), StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null && !line.contains("Let me look."); line = lines.readLine()) {
                // read up to the streamed text
            }
            assertThat(requested.await(10, TimeUnit.SECONDS)).as("the tool reached the hanging server").isTrue();

            long leftAt = System.nanoTime();
            response.body().close();
            long abortedAt = aborted.get(15, TimeUnit.SECONDS);

            assertThat(TimeUnit.NANOSECONDS.toMillis(abortedAt - leftAt)).as("ms from the client leaving to the fetch aborted")
                    .isLessThan(5_000);
            Thread.sleep(300);
            assertThat(model.requests()).hasSize(1);
        }
    }

    /** Starts a session turn whose http_get hangs on the lab's slow page; returns once the fetch is waiting there. */
    private CompletableFuture<HttpResponse<String>> slowTurn(String session) throws Exception {
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("call_slow", "http_get", "{\"url\":\"" + labUrl("/slow") + "\"}")));
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
            try {
                return post("fetch the slow page", session);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(slowArrived.await(10, TimeUnit.SECONDS)).as("the tool reached the slow page").isTrue();
        return first;
    }

    @Test
    void busyInterruptPolicy_aNewMessageDuringASlowHttpGet_endsItAndIsAnsweredAtOnce() throws Exception {
        startLab();
        start("[" + LAB + "/32]", "gateway:\n  busy_input: interrupt\n");
        CompletableFuture<HttpResponse<String>> first = slowTurn("work");

        model.enqueue(Reply.text("switching to your new question"));
        long sentAt = System.nanoTime();
        String answer = HeraldProcess.answer(post("never mind, something else", "work"));
        long answeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);

        assertThat(answer).isEqualTo("switching to your new question");
        assertThat(answeredMs).as("ms until the interrupting message was answered").isLessThan(3_000);
        assertThat(model.lastRequest().lastUserMessage()).endsWith("never mind, something else");
        first.cancel(true);
    }

    @Test
    void drain_duringASlowHttpGet_cutsTheToolOffAtTheDrainTimeoutAndMarksTheSessionForResume() throws Exception {
        startLab();
        start("[" + LAB + "/32]", "gateway:\n  drain_timeout_seconds: 1\n");
        CompletableFuture<HttpResponse<String>> first = slowTurn("work");

        var report = herald.wiring().gateway().stop(StopKind.SHUTDOWN, false);

        assertThat(report.took()).as("drain of 1 s plus the tool's stop").isLessThan(Duration.ofSeconds(3));
        assertThat(report.interrupted()).hasSize(1);
        assertThat(herald.wiring().gateway().status().activeTurns()).isZero();
        first.cancel(true);
    }
}
