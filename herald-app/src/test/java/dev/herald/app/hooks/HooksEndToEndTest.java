package dev.herald.app.hooks;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.herald.app.process.InProcessHerald;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Hooks as an operator configures them, told of a real turn: the gateway built from a config file with the demo model,
 * a turn asked over the API server, a command hook (a shell script) and a URL hook (a loopback HTTP server).
 */
class HooksEndToEndTest {
    private static final String TOKEN = "hook-token-5e1f9a";
    private static final String MODEL_KEY = "sk-model-key-77c2";
    private static final String SAID = "please remember the launch code tangerine";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the loopback hook server received: path, Authorization header, body. */
    record Received(String path, String authorization, String contentType, String body) {
    }

    static HttpServer server;
    static final List<Received> received = new CopyOnWriteArrayList<>();

    @TempDir
    Path home;

    @BeforeAll
    static void startServer() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(new Received(ex.getRequestURI().getPath(), ex.getRequestHeaders().getFirst("Authorization"),
                    ex.getRequestHeaders().getFirst("Content-Type"), body));
            int status = ex.getRequestURI().getPath().equals("/broken") ? 500 : 204;
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.stop(0);
    }

    private Path script(String name, String body) throws Exception {
        Path p = home.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("never happened: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aTurnThroughTheGateway_runsTheCommandAndUrlHooks_withoutTheTextOrAnySecret_andNeverWaitsForThem() throws Exception {
        received.clear();
        Path events = home.resolve("events.log");
        Path release = home.resolve("release");
        Path slowDone = home.resolve("slow-done");
        Path record = script("record.sh", "{ printf '%s ' \"$HERALD_EVENT\"; cat; echo; } >> \"$1\"");
        // waits until the test has its reply: a hook that held up the turn would make the request time out
        Path slow = script("slow.sh", "cat > /dev/null; while [ ! -f \"$1\" ]; do sleep 0.05; done; touch \"$2\"");
        String yaml = """
                model:
                  api_key: %s
                platforms:
                  api_server:
                    port: {port}
                    request_timeout_seconds: 30
                agent:
                  tools: []
                hooks:
                  - events: [session.started, turn.completed, turn.failed, gateway.started, gateway.stopping]
                    command: [%s, %s]
                  - events: [turn.completed]
                    url: http://127.0.0.1:%d/hook
                    headers:
                      Authorization: "Bearer ${HOOK_TOKEN}"
                  - events: [turn.completed]
                    command: [%s, %s, %s]
                    timeout_seconds: 60
                """.formatted(MODEL_KEY, record, events, server.getAddress().getPort(), slow, release, slowDone);

        try (InProcessHerald herald = InProcessHerald.in(home).env(Map.of("HOOK_TOKEN", TOKEN)).demo().start(yaml)) {
            Gateway gateway = herald.wiring().gateway();
            HttpResponse<String> reply = HttpClient.newHttpClient().send(HttpRequest.newBuilder(herald.uri("/v1/chat/completions"))
                    .header("Content-Type", "application/json").header("X-Herald-Session-Id", "hooks").timeout(Duration.ofSeconds(15))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":\""
                            + SAID + "\"}]}")).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(reply.statusCode()).isEqualTo(200);
            assertThat(slowDone).doesNotExist(); // the reply came while the slow hook still waited
            Files.writeString(release, "");
            await("the URL hook got turn.completed", () -> !received.isEmpty());
            await("the command hook recorded the turn", () -> read(events).contains("turn.completed "));
            await("the slow hook finished once released", () -> Files.exists(slowDone));
            gateway.stop(StopKind.SHUTDOWN, false);
        } // closing lets the queued gateway.stopping run

        List<String> lines = read(events).lines().toList();
        assertThat(lines).extracting(l -> l.substring(0, l.indexOf(' ')))
                .containsExactly("gateway.started", "session.started", "turn.completed", "gateway.stopping");
        JsonNode turn = JSON.readTree(lines.get(2).substring(lines.get(2).indexOf(' ') + 1));
        assertThat(turn.get("event").asText()).isEqualTo("turn.completed");
        assertThat(turn.get("outcome").asText()).isEqualTo("final");
        assertThat(turn.get("platform").asText()).isNotBlank();
        assertThat(turn.get("chat_id").asText()).isNotBlank();
        assertThat(turn.get("turn_id").asLong()).isPositive();
        assertThat(turn.get("session_id").asText()).isNotBlank();
        assertThat(turn.get("node").asText()).isNotBlank();
        assertThat(turn.get("duration_ms").asLong()).isNotNegative();
        JsonNode stopping = JSON.readTree(lines.get(3).substring(lines.get(3).indexOf(' ') + 1));
        assertThat(stopping.get("stop_kind").asText()).isEqualTo("shutdown");
        assertThat(stopping.get("node").asText()).isEqualTo(turn.get("node").asText());

        assertThat(received).hasSize(1);
        Received r = received.get(0);
        assertThat(r.authorization()).isEqualTo("Bearer " + TOKEN);
        assertThat(r.contentType()).isEqualTo("application/json");
        assertThat(JSON.readTree(r.body()).get("turn_id").asLong()).isEqualTo(turn.get("turn_id").asLong());

        String everything = read(events) + r.body();
        assertThat(everything).doesNotContain(TOKEN).doesNotContain(MODEL_KEY).doesNotContain("tangerine").doesNotContain("demo model");
    }

    @Test
    void hooksThatFailOrHang_areLoggedWithWhatHappened_andKilledAtTheirTimeout() throws Exception {
        received.clear();
        Logger logger = (Logger) LoggerFactory.getLogger("hooks");
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        logger.addAppender(logs);
        Path failing = script("failing.sh", "cat > /dev/null; echo \"no route to the pager\" >&2; exit 3");
        Path hang = script("hang.sh", "sleep 30");
        String yaml = """
                platforms:
                  api_server:
                    enabled: false
                hooks:
                  - events: [gateway.started]
                    command: [%s]
                  - events: [gateway.started]
                    command: [%s]
                    timeout_seconds: 0.5
                  - events: [gateway.started]
                    url: http://127.0.0.1:%d/broken?key=%s
                """.formatted(failing, hang, server.getAddress().getPort(), TOKEN);
        try (InProcessHerald herald = InProcessHerald.in(home).demo().start(yaml)) {
            await("three hook failures logged", () -> logs.list.stream().filter(e -> e.getLevel().toString().equals("WARN")).count() >= 3);
            herald.wiring().gateway().stop(StopKind.SHUTDOWN, false);
        } finally {
            logger.detachAppender(logs);
        }
        List<String> warnings = logs.list.stream().filter(e -> e.getLevel().toString().equals("WARN"))
                .map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(warnings).anySatisfy(w -> assertThat(w)
                .startsWith("hooks - hooks[0] (command failing.sh) on gateway.started exited with 3 after ")
                .endsWith("; stderr ends: no route to the pager"));
        assertThat(warnings).anySatisfy(w -> assertThat(w)
                .startsWith("hooks - hooks[1] (command hang.sh) on gateway.started timed out after ")
                .endsWith("(timeout_seconds 0.5); killed"));
        assertThat(warnings).anySatisfy(w -> assertThat(w)
                .startsWith("hooks - hooks[2] (url 127.0.0.1:" + server.getAddress().getPort() + ") on gateway.started answered HTTP 500"));
        assertThat(String.join("\n", warnings)).doesNotContain(TOKEN);
    }
}
