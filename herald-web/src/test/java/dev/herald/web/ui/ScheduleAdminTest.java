package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.Schedule;
import dev.herald.core.schedule.SchedulePlatform;
import dev.herald.core.schedule.Scheduler;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.schedule.Targets;
import dev.herald.core.session.SessionKey;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.web.WebServer;
import dev.herald.web.WebUi;
import dev.herald.web.access.WebAccess;
import dev.herald.web.metrics.HeraldMetrics;
import dev.herald.web.metrics.ScheduleMeters;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin page's scheduled jobs over real HTTP: the list with next run and last result, pause, resume, run now
 * and delete, and the scheduler's figures in {@code /metrics}. A real gateway on SQLite runs the job's turn
 * (a {@code deliver: log} job on the internal schedule platform).
 */
class ScheduleAdminTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private final ScriptedAgent agent = new ScriptedAgent();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private SqliteStorage storage;
    private WebServer web;
    private Gateway gateway;
    private Scheduler scheduler;

    @BeforeEach
    void start() {
        Clock clock = Clock.systemUTC();
        storage = SqliteStorage.open(dir.resolve("herald.db"), clock);
        HeraldMetrics metrics = new HeraldMetrics();
        web = new WebServer(WebServer.Settings.ephemeral());
        WebUi ui = WebUi.create(web, null, storage, SessionKey.KeyPolicy.defaults(), metrics, clock);
        SchedulePlatform log = new SchedulePlatform();
        gateway = Gateway.builder(storage, agent, new Allowlists(Map.of(ui.chat().platform(), AccessPolicy.allowAll(), log.platform(), AccessPolicy.allowAll()), false), new PlatformRegistry(List.of(ui.chat(), log), List.of()))
                .settings(GatewaySettings.defaults())
                .clock(clock)
                .metrics(metrics)
                .build();
        Schedules schedules = new Schedules(storage.schedules(), clock, ZoneId.of("UTC"), p -> true);
        scheduler = new Scheduler(storage.schedules(), gateway, clock, new ScheduleMeters(metrics), Scheduler.Settings.defaults());
        ui.attach(gateway).attachSchedules(schedules, scheduler);
        web.start();
        gateway.start(Gateway.StartOptions.normal());
        Instant now = clock.instant();
        Schedule daily = Schedule.parse("0 7 * * *", ZoneId.of("Europe/Berlin"), now);
        storage.schedules().create(new Job("digest", "write the morning digest", daily, Targets.log("digest", "config"), Misfire.RUN_ONCE,
                Duration.ofHours(1), true, Definer.CONFIG, "config", now, now, daily.nextAfter(now).orElseThrow(), null, null, null, "fast",
                java.util.List.of("read_file", "http_get")));
    }

    @AfterEach
    void stop() {
        scheduler.close();
        gateway.stop(StopKind.SHUTDOWN, false);
        web.close();
        storage.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String json, boolean fromThePage) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (fromThePage) {
            b.header(WebAccess.CSRF_HEADER, "1");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode job() throws Exception {
        JsonNode jobs = JSON.readTree(get("/admin/api/schedules").body()).path("jobs");
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    @Test
    void list_showsTheJobWithItsScheduleTargetAndNextRun() throws Exception {
        JsonNode j = job();

        assertThat(j.path("id").asText()).isEqualTo("digest");
        assertThat(j.path("schedule").asText()).isEqualTo("0 7 * * *");
        assertThat(j.path("timeZone").asText()).isEqualTo("Europe/Berlin");
        assertThat(j.path("target").asText()).isEqualTo("log");
        assertThat(j.path("status").asText()).isEqualTo("active");
        assertThat(j.path("definedBy").asText()).isEqualTo("config");
        assertThat(Instant.parse(j.path("nextRunAt").asText())).isAfter(Instant.now());
        assertThat(j.path("lastOutcome").isNull()).isTrue();
        assertThat(j.path("model").asText()).isEqualTo("fast");
        assertThat(j.path("tools")).extracting(com.fasterxml.jackson.databind.JsonNode::asText).containsExactly("read_file", "http_get");
    }

    @Test
    void runNow_runsTheJobOnce_andItsResultShowsInTheListAndInMetrics() throws Exception {
        agent.reply("the digest");

        HttpResponse<String> r = post("/admin/api/schedules/run-now", "{\"id\":\"digest\"}", true);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(JSON.readTree(r.body()).path("message").asText()).isEqualTo("started; its answer goes to log");
        agent.awaitCalls(1, Duration.ofSeconds(10));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!"ok".equals(job().path("lastOutcome").asText()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            scheduler.tick();
        }
        assertThat(job().path("lastOutcome").asText()).isEqualTo("ok");
        assertThat(agent.messages()).singleElement().satisfies(m -> assertThat(m).startsWith("[Scheduled task digest (0 7 * * *), run now "
                + "by an operator] write the morning digest"));
        String scrape = get("/metrics").body();
        assertThat(scrape).contains("herald_schedule_runs_total{job=\"digest\",outcome=\"ok\"} 1.0")
                .contains("herald_schedule_lag_seconds_count 1");
    }

    @Test
    void pauseResumeDelete_actOnTheJob() throws Exception {
        assertThat(post("/admin/api/schedules/pause", "{\"id\":\"digest\"}", true).statusCode()).isEqualTo(200);
        assertThat(job().path("status").asText()).isEqualTo("paused");

        assertThat(post("/admin/api/schedules/resume", "{\"id\":\"digest\"}", true).statusCode()).isEqualTo(200);
        assertThat(job().path("status").asText()).isEqualTo("active");

        assertThat(post("/admin/api/schedules/delete", "{\"id\":\"digest\"}", true).statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(get("/admin/api/schedules").body()).path("jobs")).isEmpty();
        HttpResponse<String> again = post("/admin/api/schedules/delete", "{\"id\":\"digest\"}", true);
        assertThat(again.statusCode()).isEqualTo(404);
        assertThat(again.body()).contains("There is no job digest");
    }

    @Test
    void panel_inChromium_listsRunsPausesResumesAndDeletesTheJob() throws Exception {
        agent.reply("the digest");
        scheduler.start();
        Path module = WebChatBrowserTest.MODULE;
        try (BrowserScript page = BrowserScript.start(module.resolve("src/test/node"), "browser/schedules.mjs",
                Map.of("HERALD_URL", web.baseUrl(), "HERALD_SHOTS", module.resolve("target/screenshots").toString()))) {
            assertThat(page.awaitStep("listed", Duration.ofSeconds(60)).path("text").asText()).contains("digest").contains("log")
                    .contains("model fast \u00b7 tools read_file, http_get");
            assertThat(page.awaitStep("ran", Duration.ofSeconds(60)).path("text").asText()).contains("ok");
            page.awaitStep("paused-and-resumed", Duration.ofSeconds(60));
            page.awaitStep("deleted", Duration.ofSeconds(60));
            page.awaitDone(Duration.ofSeconds(60));
        }
        assertThat(agent.calls()).hasSize(1);
        assertThat(storage.schedules().list()).isEmpty();
    }

    @Test
    void actions_fromOutsideThePage_areRefusedAndChangeNothing() throws Exception {
        HttpResponse<String> r = post("/admin/api/schedules/delete", "{\"id\":\"digest\"}", false);

        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(job().path("status").asText()).isEqualTo("active");
    }
}
