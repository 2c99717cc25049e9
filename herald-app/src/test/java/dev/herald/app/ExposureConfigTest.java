package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code herald run} refuses, before it creates anything, to expose the HTTP listener to other machines
 * with a guessable key or an unsigned webhook route: exit 78, the key named, its value never printed.
 */
class ExposureConfigTest {
    @TempDir
    Path userHome;

    private CliRun run(String yaml) throws IOException {
        Path file = Files.writeString(userHome.resolve("config.yaml"), yaml);
        return CliRun.of(Map.of("HERALD_API_KEY", "pa55word"), userHome, "run", "--home", userHome.resolve("home").toString(),
                "--config", file.toString());
    }

    @Test
    void run_aShortKeyOnAPublicHost_exits78NamingTheKeyWithoutPrintingIt() throws IOException {
        CliRun r = run("platforms:\n  api_server:\n    host: 0.0.0.0\n    key: ${HERALD_API_KEY}\n");

        assertThat(r.exit()).isEqualTo(78);
        assertThat(r.err()).contains("platforms.api_server.key is shorter than 16 characters").doesNotContain("pa55word");
        assertThat(r.out()).doesNotContain("pa55word");
        assertThat(userHome.resolve("home")).doesNotExist();
    }

    @Test
    void run_anUnsignedWebhookRouteOnAPublicHost_exits78NamingTheRoute() throws IOException {
        CliRun r = run("""
                platforms:
                  api_server:
                    host: 0.0.0.0
                    key: a-long-enough-random-key-0123456789
                  webhook:
                    enabled: true
                    routes:
                      alerts:
                        signature: none
                """);

        assertThat(r.exit()).isEqualTo(78);
        assertThat(r.err()).contains("platforms.webhook.routes.alerts.signature is none while platforms.api_server.host is 0.0.0.0");
        assertThat(userHome.resolve("home")).doesNotExist();
    }
}
