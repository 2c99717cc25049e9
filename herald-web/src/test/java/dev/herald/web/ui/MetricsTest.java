package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.gateway.StopKind;
import dev.herald.testkit.agent.ScriptedAgent;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /metrics} in Prometheus text after real turns, and {@code /health} / {@code /health/ready}. */
class MetricsTest {
    @TempDir
    Path dir;

    @Test
    void metrics_afterATurn_countsItByOutcome_withLatencyGaugesAndPlatformState() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            fx.chat("conv-metric", "m-metric-1", "count me");
            fx.awaitReply("conv-metric", "echo: count me");
            // the reply is shown before the turn's lane is released (that follows once the delivery is recorded)
            HttpResponse<String> scrape = fx.get("/metrics");
            for (long end = System.nanoTime() + 10_000_000_000L; !scrape.body().contains("herald_lanes_claimed 0.0")
                    && System.nanoTime() < end; ) {
                sleep(20);
                scrape = fx.get("/metrics");
            }
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            String body = scrape.body();
            assertThat(body).contains("herald_turns_total{outcome=\"final\",platform=\"webchat\"} 1.0");
            assertThat(body).contains("herald_turn_duration_seconds_count{outcome=\"final\",platform=\"webchat\"} 1");
            assertThat(body).contains("herald_turns_started_total{note=\"none\",origin=\"user\",platform=\"webchat\"} 1.0");
            assertThat(body).contains("herald_model_call_duration_seconds_count{outcome=\"message\"} 1");
            assertThat(body).contains("herald_turns_active 0.0").contains("herald_turns_waiting 0.0").contains("herald_lanes_claimed 0.0");
            assertThat(body).contains("herald_platform_connected{platform=\"webchat\"} 1.0");
            assertThat(body).contains("herald_platform_reconnects_total{platform=\"webchat\"} 0.0");
            assertThat(body).contains("herald_sessions_suspended_total{reason=\"stuck_loop\"} 0.0");
            assertThat(body).contains("herald_gateway_running 1.0").contains("jvm_memory_used_bytes");

            fx.post("/admin/api/sessions/suspend", "{\"key\":\"" + fx.key("conv-metric").value() + "\"}");
            assertThat(fx.get("/metrics").body()).contains("herald_sessions_suspended_total{reason=\"operator\"} 1.0");
        }
    }

    @Test
    void health_isLive_readyOnlyWhileTheGatewayRuns() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            assertThat(fx.get("/health").statusCode()).isEqualTo(200);
            HttpResponse<String> ready = fx.get("/health/ready");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).contains("\"ready\"");
            fx.gateway.stop(StopKind.SHUTDOWN, false);
            HttpResponse<String> stopped = fx.get("/health/ready");
            assertThat(stopped.statusCode()).isEqualTo(503);
            assertThat(stopped.body()).contains("stopped");
            assertThat(fx.get("/health").statusCode()).isEqualTo(200);
            assertThat(fx.get("/metrics").body()).contains("herald_gateway_running 0.0");
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
