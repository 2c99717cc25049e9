package dev.herald.app.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.app.HeraldRuntime;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web chat across a real restart of the Herald process, in headless Chromium: a turn is held at the
 * model with the page open and streaming; SIGUSR1 drains (1 s), marks the session resume-pending and
 * exits 75; the page shows "reconnecting…" and keeps a message typed meanwhile; a new process resumes
 * the turn; the page shows the resumed answer once and delivers the kept message once. The model is a
 * {@link FakeModelServer} in this JVM; Herald runs as {@code herald run --foreground} on this class path.
 */
class WebChatRestartBrowserTest {
    private static final Path MODULE = moduleDir();
    private static final Path NODE_DIR = MODULE.resolveSibling("herald-web").resolve("src/test/node");
    private static final Path SHOTS = MODULE.resolve("target/screenshots");
    private static final Duration STEP = Duration.ofSeconds(90);
    private static final String OFFLINE = "Also add a one-line summary";

    @TempDir
    Path home;

    @Test
    void restartDuringAHeldTurn_pageReconnects_resumedAnswerOnce_offlineMessageDeliveredOnce() throws Exception {
        BrowserScript.requireInstalled(NODE_DIR);
        int port = HeraldProcess.freePort();
        Path log = Files.createDirectories(MODULE.resolve("target/restart-test")).resolve("herald-" + port + ".log");
        try (FakeModelServer model = FakeModelServer.start()) {
            writeConfig(model, port);
            Hold held = model.enqueueHeld(Reply.stream("Working on ", "the report..."), 1);
            long firstPid;
            try (HeraldProcess first = HeraldProcess.start(home, port, log);
                    BrowserScript page = BrowserScript.start(NODE_DIR, "browser/restart.mjs",
                            Map.of("HERALD_URL", first.baseUrl(), "HERALD_SHOTS", SHOTS.toString()))) {
                firstPid = first.pid();
                page.awaitStep("streaming", STEP);
                held.awaitArrived(Duration.ofSeconds(10));
                first.signal("USR1");
                assertThat(first.awaitExit(Duration.ofSeconds(60))).as("exit code of a restart").isEqualTo(HeraldRuntime.RESTART_EXIT);
                page.awaitStep("reconnecting", STEP);
                assertThat(page.awaitStep("typed-offline", STEP).path("kept").asInt()).isEqualTo(1);

                model.enqueue(Reply.stream("The quarterly ", "report is finished."));
                try (HeraldProcess second = HeraldProcess.start(home, port, log)) {
                    assertThat(second.pid()).isNotEqualTo(firstPid);
                    page.signal("restarted");
                    JsonNode resumed = page.awaitStep("resumed", STEP);
                    assertThat(resumed.path("resumed").asInt()).isEqualTo(1);
                    assertThat(resumed.path("echoed").asInt()).isEqualTo(1);
                    assertThat(resumed.path("sent").asInt()).isEqualTo(1);
                    page.awaitDone(STEP);

                    assertThat(model.requests().stream().filter(r -> OFFLINE.equals(r.lastUserMessage())).count())
                            .as("the message typed while Herald was down reached the model once").isEqualTo(1);
                    RecordedRequest resume = model.requests().get(1);
                    assertThat(resume.lastUserMessage()).as("the resume turn's note").contains("[System note:").containsIgnoringCase("restart");
                    String metrics = get(second.baseUrl() + "/metrics");
                    assertThat(metrics).contains("herald_turns_total{outcome=\"final\",platform=\"webchat\"}")
                            .contains("herald_resumes_total{platform=\"webchat\",reason=\"restart_timeout\"} 1.0");
                }
            }
        }
        assertThat(Files.size(SHOTS.resolve("webchat-after-restart.png"))).isGreaterThan(10_000);
    }

    private void writeConfig(FakeModelServer model, int port) throws Exception {
        Files.writeString(home.resolve("config.yaml"), String.join("\n",
                "model:",
                "  base_url: " + model.baseUrl(),
                "  name: fake-model",
                "platforms:",
                "  api_server:",
                "    port: " + port,
                "gateway:",
                "  drain_timeout_seconds: 1",
                "  startup_restore_drain_timeout_seconds: 20",
                ""));
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    private static Path moduleDir() {
        String basedir = System.getProperty("basedir");
        Path d = Path.of(basedir != null ? basedir : System.getProperty("user.dir")).toAbsolutePath();
        return Files.isDirectory(d.resolve("src/test/java/dev/herald/app")) ? d : d.resolve("herald-app");
    }
}
