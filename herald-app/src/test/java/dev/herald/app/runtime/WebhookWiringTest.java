package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigException;
import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.HeraldConfig;
import dev.herald.app.process.InProcessHerald;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ConnectionState;
import dev.herald.web.webhook.WebhookPlatform;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The webhook platform as the runtime wires it from a config file. */
class WebhookWiringTest {
    @TempDir
    Path home;

    private HeraldConfig load(String yaml) throws Exception {
        Path file = home.resolve("config.yaml");
        Files.writeString(file, yaml);
        return new ConfigLoader(Map.of()).load(file, true, home).config();
    }

    @Test
    void aWebhookAlone_getsTheSharedListener_andItsVerifiedRequestsBecomeTurns() throws Exception {
        String yaml = """
                platforms:
                  api_server:
                    enabled: false
                    port: {port}
                  webhook:
                    enabled: true
                    routes:
                      ci:
                        signature: none
                        prompt: "build {status}"
                """;

        try (InProcessHerald herald = InProcessHerald.in(home).demo().start(yaml)) {
            Gateway gateway = herald.wiring().gateway();
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(herald.uri("/webhooks/ci"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"status\":\"red\"}")).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(r.statusCode()).isEqualTo(202);
            // besides the webhook, only the internal log delivery of scheduled jobs and the background tasks' platform
            assertThat(gateway.status().platforms()).containsOnlyKeys(WebhookPlatform.PLATFORM,
                    dev.herald.core.schedule.SchedulePlatform.PLATFORM, dev.herald.core.platform.BackgroundChats.PLATFORM);
            assertThat(gateway.status().platforms().get(WebhookPlatform.PLATFORM).state()).isEqualTo(ConnectionState.CONNECTED);
            gateway.stop(StopKind.SHUTDOWN, false);
        }
    }

    @Test
    void aRouteDeliveringToAPlatformThatIsNotEnabled_stopsWiringWithAConfigError() throws Exception {
        HeraldConfig config = load("""
                platforms:
                  webhook:
                    enabled: true
                    routes:
                      ci:
                        signature: none
                        deliver: slack:C0123
                """);

        assertThatThrownBy(() -> Wiring.build(config, home, true, Clock.systemUTC()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config - platforms.webhook.routes.ci.deliver names platform 'slack', which is not enabled; "
                        + "enable platforms.slack or deliver to log");
    }
}
